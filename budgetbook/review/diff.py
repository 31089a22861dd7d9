"""`diff`: two budgets side by side, the way a reviewer reads a code change.

Each side is a plan file, a template name, a generated (possibly edited)
workbook read as `extract` reads it (its current inputs), or `git:REV:path`,
a plan or workbook in the history of the current directory's repository. Both
sides go through the same reference model, so a figure's delta is what the
change costs; nothing is compared cell by cell except the workbooks' own
audits (formulas changed or typed over), which are listed where one side has
a finding the other does not.

Entries of a list are matched by id (`workloads[finetune].mfu`), so moving a
workload up the file is not a change; people roles, which have no id, by
position.
"""

from __future__ import annotations

import math
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from ..errors import BudgetbookError, UsageError, WorkbookError
from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan
from ..plan.numbers import Num
from ..reference import Breakdown, compute_breakdown
from .compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, close_enough
from .findings import Finding
from .shape import entities

GIT_PREFIX = "git:"
GIT_TIMEOUT = 60.0
MAX_GIT_BLOB = 100_000_000  # the largest workbook `load_xlsx` accepts; a plan is refused far below it


# ---------------------------------------------------------------- one side

@dataclass
class Side:
    """One budget as `diff` reads it: its plan (a workbook's current inputs), figures and audit findings."""

    spec: str                 # as given on the command line
    kind: str                 # "plan", "template" or "workbook"
    plan: Plan
    text: str                 # the plan's text (a workbook's: as `extract` writes it, comments kept)
    breakdown: Breakdown
    findings: list[Finding] = field(default_factory=list)  # a workbook's formula edits and structure findings

    def as_json(self) -> dict:
        return {"spec": self.spec, "kind": self.kind, "plan": self.plan.name, "currency": self.plan.currency}

    @cached_property
    def inputs(self) -> dict[str, tuple[InputCell, str]]:
        """Every numeric input by id-keyed path, with its source note (the plan's comment on it)."""
        notes = source_notes(self.text)
        return {id_key(self.plan, cell.path): (cell, notes.get(cell.path, "") or cell.note)
                for cell in input_cells(self.plan)}


def load_side(spec: str) -> Side:
    """The budget `spec` names; a `BudgetbookError` (one line, exit 2) when it cannot be read."""
    if spec.startswith(GIT_PREFIX):
        return _from_git(spec)
    path = Path(spec)
    if is_workbook(path):
        return _from_workbook(path, spec)
    from ..plan.loader import _names_a_file, plan_from_text, resolve

    source, text = resolve(spec)
    plan = plan_from_text(text, source)
    return Side(spec, "plan" if _names_a_file(path) else "template", plan, text, compute_breakdown(plan))


def is_workbook(path: Path) -> bool:
    """A file that is a zip archive (or named .xlsx/.xlsm): read as a workbook, not as plan text."""
    from ..xlsx.file_bytes import ZIP_MAGICS

    if path.suffix.lower() in (".xlsx", ".xlsm"):
        return True
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4).startswith(ZIP_MAGICS)
    except OSError:
        return False


def _from_workbook(path: Path, spec: str) -> Side:
    """A workbook's current inputs, read as `extract` reads them (refusing what it refuses), and its edits."""
    from ..plan.loader import plan_from_data
    from ..plan.yamlsafe import parse_yaml_text
    from . import audit, structure
    from .extract import current_ranges, rewrite_plan
    from .findings import INPUT_PROBLEMS
    from .readback import evaluate_formula_inputs, open_book, read_inputs

    book = open_book(path)
    cells = input_cells(book.plan)
    values, problems = read_inputs(book, cells, evaluate_formula_inputs(book, cells), {})
    problems = [f for f in problems if f.kind in INPUT_PROBLEMS]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise WorkbookError(f"{problems[0].where}: {problems[0].message}{more}", source=str(path))
    text = rewrite_plan(book.plan_text, current_ranges(book, cells, values), book)
    # shaped like the embedded plan (same ids): laid out once already, not again
    plan = plan_from_data(parse_yaml_text(text), f"{path} (current inputs)", shaped_like=book.plan)
    findings = audit.formula_edits(book) + structure.audit_structure(book)
    return Side(spec, "workbook", plan, text, compute_breakdown(plan), findings)


def _from_git(spec: str) -> Side:
    """`git:REV:path`: the file as committed at REV, read with `git cat-file` from the current directory.

    `cat-file blob` (what `git show REV:path` prints for a file, minus any textconv filter); the path is
    git's: from the top of the repository, or `./path` from the current directory.
    """
    rev, sep, path = spec[len(GIT_PREFIX):].partition(":")
    if not sep or not rev or not path:
        raise UsageError(f"`{spec}`: expected git:REV:path (for example git:HEAD~1:plan.yaml)")
    object_name = f"{rev}:{path}"
    size = _git(["cat-file", "-s", object_name], spec).strip()
    if not size.isdigit() or int(size) > MAX_GIT_BLOB:
        raise UsageError(f"`{spec}`: {size} bytes is more than a plan or workbook may hold")
    with tempfile.TemporaryDirectory(prefix="budgetbook-diff-") as tmp:
        copy = Path(tmp) / (Path(path).name or "blob")
        with open(copy, "wb") as out:
            _git(["cat-file", "blob", object_name], spec, stdout=out)
        try:
            if is_workbook(copy):
                side = _from_workbook(copy, spec)
            else:
                from ..plan.loader import plan_from_text
                from ..plan.yamlsafe import read_plan_text

                text = read_plan_text(copy)
                plan = plan_from_text(text, spec)
                side = Side(spec, "plan", plan, text, compute_breakdown(plan))
        except BudgetbookError as exc:  # it names the temporary copy: name what the user gave
            exc.source = spec
            raise
    return side


def _git(args: list[str], spec: str, stdout: Any = None) -> str:
    try:
        done = subprocess.run(["git", *args], stdout=stdout if stdout is not None else subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise UsageError(f"`{spec}`: git is not installed (needed to read a file from git history)") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"`{spec}`: git did not answer within {GIT_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        reason = next((line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()),
                      f"git exited with {done.returncode}")
        raise UsageError(f"`{spec}`: {reason.removeprefix('fatal: ')}")
    return done.stdout.decode("utf-8", "replace") if stdout is None else ""


# ---------------------------------------------------------------- key paths by id, and source notes

def id_key(plan: Plan, path: tuple) -> str:
    """A key path with list entries named by id where they have one: `workloads[finetune].mfu`."""
    out, node = "", cast(Any, plan)
    for part in path:
        if isinstance(part, int):
            entry = node[part] if isinstance(node, list) and part < len(node) else None
            ident = getattr(entry, "id", None)
            out += f"[{ident}]" if isinstance(ident, str) else f"[{part}]"
            node = entry
        else:
            out += f".{part}" if out else str(part)
            node = node.get(part) if isinstance(node, dict) else getattr(node, str(part), None)
    return out


def source_notes(text: str) -> dict[tuple, str]:
    """The end-of-line comment after each value in the plan's text (`# seed 000: "48,000 hrs x $3.00"`).

    Read from the YAML nodes' end marks (libyaml where installed: ruamel's round-trip parse, which
    keeps comments, takes seconds on a large plan): what follows a scalar or flow value on its line.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        root = yaml.compose(text, Loader=loader)  # noqa: S506 - a safe loader; the text already loaded as a plan
    except yaml.YAMLError:
        return {}
    lines = text.splitlines()
    notes: dict[tuple, str] = {}

    def note_after(node: yaml.Node) -> str:
        mark = node.end_mark
        if mark.line >= len(lines):
            return ""
        rest = lines[mark.line][mark.column:].strip()
        return rest.lstrip("#").strip() if rest.startswith("#") else ""

    todo: list[tuple[yaml.Node, tuple]] = [(root, ())] if root is not None else []
    while todo:
        node, path = todo.pop()
        children: list[tuple[Any, yaml.Node]] = []
        if isinstance(node, yaml.MappingNode):
            children = [(key.value, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)]
        elif isinstance(node, yaml.SequenceNode):
            children = list(enumerate(node.value))
        for key, value in children:
            one_line = isinstance(value, yaml.ScalarNode) and value.start_mark.line == value.end_mark.line
            if one_line or getattr(value, "flow_style", False):  # a block scalar ends on the next line
                note = note_after(value)
                if note:
                    notes[path + (key,)] = note
            if not isinstance(value, yaml.ScalarNode):
                todo.append((value, path + (key,)))
    return notes


# ---------------------------------------------------------------- the comparison

@dataclass
class InputChange:
    key: str
    change: str               # "added", "removed", "changed"
    label: str
    old: Num | None
    new: Num | None
    note: str = ""

    def as_dict(self) -> dict:
        return {"key": self.key, "change": self.change, "label": self.label,
                "old": None if self.old is None else self.old.to_yaml(),
                "new": None if self.new is None else self.new.to_yaml(), "note": self.note}


@dataclass
class StructureChange:
    kind: str                 # "market", "workload", "line_item", ... ; "setting" for a non-numeric key
    key: str                  # the id, or the key path of a setting
    change: str               # "added", "removed", "changed"
    old: Any = None
    new: Any = None

    def as_dict(self) -> dict:
        return {"kind": self.kind, "key": self.key, "change": self.change, "old": self.old, "new": self.new}


@dataclass
class FigureChange:
    name: str
    item: str
    market: str
    label: str
    old: float | None
    new: float | None

    @property
    def delta(self) -> float:
        return (self.new or 0.0) - (self.old or 0.0)

    @property
    def pct(self) -> float | None:
        return None if not self.old or self.new is None else 100.0 * self.delta / self.old

    def as_dict(self) -> dict:
        return {"name": self.name, "item": self.item, "market": self.market, "label": self.label,
                "old": self.old, "new": self.new, "delta": self.delta, "pct": self.pct}


@dataclass
class AuditChange:
    side: str                 # "old" or "new": the side that has the finding the other does not
    finding: Finding

    def as_dict(self) -> dict:
        return {"side": self.side, **self.finding.as_dict()}


@dataclass
class Limit:
    """`--fail-above`: an amount in the currency, or a percentage of the old total."""

    amount: float
    percent: bool

    @classmethod
    def parse(cls, text: str) -> Limit:
        raw = text.strip()
        percent = raw.endswith("%")
        try:
            value = float(raw.removesuffix("%").replace(",", "").replace("_", ""))
        except ValueError:
            raise UsageError(f"`--fail-above` expects an amount (5000) or a percentage (5%), got {text!r}") from None
        if not math.isfinite(value) or value < 0:
            raise UsageError(f"`--fail-above` must be a finite number at least 0, got {text!r}")
        return cls(value, percent)

    def crossed(self, total: FigureChange) -> bool:
        if total.old is None or total.new is None:
            return False  # a market on one side only is another option, not a rise
        if self.percent:
            return total.delta > 0 and (total.old == 0 or 100.0 * total.delta / total.old > self.amount)
        return total.delta > self.amount

    def __str__(self) -> str:
        return f"{self.amount:g}%" if self.percent else f"{self.amount:,.2f}"


@dataclass
class BudgetDiff:
    old: Side
    new: Side
    inputs: list[InputChange]
    structure: list[StructureChange]
    figures: list[FigureChange]      # changed figures only: per market, its total first
    totals: list[FigureChange]       # every market's total, changed or not (markets on both sides first)
    audit: list[AuditChange]
    limit: Limit | None = None

    @property
    def over(self) -> list[FigureChange]:
        """The markets' totals that rose more than `--fail-above` allows."""
        return [t for t in self.totals if self.limit is not None and self.limit.crossed(t)]

    @property
    def currency(self) -> str:
        return self.new.plan.currency

    @property
    def changed(self) -> bool:
        return bool(self.inputs or self.structure or self.figures or self.audit)

    def as_json(self) -> dict:
        data = {"old": self.old.as_json(), "new": self.new.as_json(),
                "inputs": [c.as_dict() for c in self.inputs],
                "structure": [c.as_dict() for c in self.structure],
                "figures": [c.as_dict() for c in self.figures],
                "total": {t.market: {"old": t.old, "new": t.new, "delta": t.delta, "pct": t.pct}
                          for t in self.totals},
                "audit": [c.as_dict() for c in self.audit]}
        if self.limit is not None:
            data["fail_above"] = {"limit": self.limit.amount, "percent": self.limit.percent,
                                  "over": [t.market for t in self.over]}
        return data


def diff_budgets(old_spec: str, new_spec: str, fail_above: str | None = None) -> BudgetDiff:
    """What changed from `old_spec` to `new_spec`: inputs, structure, figures and the workbooks' audits."""
    limit = Limit.parse(fail_above) if fail_above is not None else None  # before any work: a usage error
    old, new = load_side(old_spec), load_side(new_spec)
    if old.plan.currency != new.plan.currency:
        import warnings

        warnings.warn(f"{old_spec} is in {old.plan.currency}, {new_spec} in {new.plan.currency}: the deltas "
                      "subtract one from the other as they are, unconverted", stacklevel=2)
    figures, totals = _figures(old.breakdown, new.breakdown)
    return BudgetDiff(old, new, _inputs(old, new), _structure(old, new), figures, totals, _audit(old, new), limit)


def _same(a: Num, b: Num) -> bool:
    close = lambda x, y: math.isclose(x, y, rel_tol=1e-12, abs_tol=0.0)  # noqa: E731
    return a.ranged == b.ranged and close(a.base, b.base) and close(a.low, b.low) and close(a.high, b.high)


def _inputs(old: Side, new: Side) -> list[InputChange]:
    before, after = old.inputs, new.inputs
    changes = []
    for key, (cell, note) in after.items():
        if key not in before:
            changes.append(InputChange(key, "added", cell.label, None, cell.num, note))
        elif not _same(before[key][0].num, cell.num):
            changes.append(InputChange(key, "changed", cell.label, before[key][0].num, cell.num,
                                       note or before[key][1]))
    changes += [InputChange(key, "removed", cell.label, cell.num, None, note)
                for key, (cell, note) in before.items() if key not in after]
    return changes


def _settings(model: Any, plan: Plan, path: tuple, out: dict[str, Any]) -> None:
    """Every non-numeric key (a GPU, a kind, a label, a hybrid's assignment), by id-keyed path."""
    if isinstance(model, BaseModel):
        for name in type(model).model_fields:
            _settings(getattr(model, name), plan, path + (name,), out)
    elif isinstance(model, list):
        for i, entry in enumerate(model):
            _settings(entry, plan, path + (i,), out)
    elif isinstance(model, dict):
        for key, entry in model.items():
            _settings(entry, plan, path + (key,), out)
    elif not isinstance(model, Num) and model is not None and model != "":
        out[id_key(plan, path)] = model if isinstance(model, (str, bool, int, float)) else str(model)


def _structure(old: Side, new: Side) -> list[StructureChange]:
    changes = []
    before, after = list(entities(old.plan)), list(entities(new.plan))
    had, has = set(before), set(after)
    changes += [StructureChange(kind, ident, "added") for kind, ident in after if (kind, ident) not in had]
    changes += [StructureChange(kind, ident, "removed") for kind, ident in before if (kind, ident) not in has]
    items_before = list(dict.fromkeys(f.item for f in old.breakdown.figures))
    items_after = list(dict.fromkeys(f.item for f in new.breakdown.figures))
    changes += [StructureChange("line_item", item, "added") for item in items_after if item not in items_before]
    changes += [StructureChange("line_item", item, "removed") for item in items_before if item not in items_after]
    numeric = set(old.inputs) | set(new.inputs)
    settings_before: dict[str, Any] = {}
    settings_after: dict[str, Any] = {}
    _settings(old.plan, old.plan, (), settings_before)
    _settings(new.plan, new.plan, (), settings_after)
    gone = {f"{kind}s[{ident}]" for kind, ident in had ^ has}  # entries added or removed as a whole
    for key in dict.fromkeys([*settings_after, *settings_before]):
        if key in numeric or key.split(".")[0] in gone:
            continue  # an input (listed with the inputs), or a key of an entry added or removed as a whole
        was, now = settings_before.get(key), settings_after.get(key)
        if was != now:
            change = "changed" if was is not None and now is not None else "added" if was is None else "removed"
            changes.append(StructureChange("setting", key, change, was, now))
    return changes


def _figures(old: Breakdown, new: Breakdown) -> tuple[list[FigureChange], list[FigureChange]]:
    before = {f.name: f for f in old.figures}
    after = {f.name: f for f in new.figures}
    markets = list(dict.fromkeys([*new.markets, *old.markets]))
    figures, totals = [], []
    for market in markets:
        names = [f.name for f in new.figures if f.market == market]
        names += [f.name for f in old.figures if f.market == market and f.name not in after]
        rows = []
        for name in names:
            was, now = before.get(name), after.get(name)
            shown = now if now is not None else was
            assert shown is not None
            row = FigureChange(name, shown.item, market, shown.label, was.value if was else None,
                               now.value if now else None)
            if row.item == "total":
                totals.append(row)
            if was is None or now is None or not close_enough(was.value, now.value, DEFAULT_REL_TOL,
                                                              DEFAULT_ABS_TOL):
                rows.append(row)
        figures += sorted(rows, key=lambda r: r.item != "total")  # the total first, the lines in report order
    totals.sort(key=lambda t: t.old is None or t.new is None)
    return figures, totals


def _audit(old: Side, new: Side) -> list[AuditChange]:
    """Findings one side's workbook has and the other's has not (a formula typed over, a helper cell added)."""
    key = lambda f: (f.kind, f.sheet, f.cell, f.name, f.message)  # noqa: E731
    before, after = {key(f) for f in old.findings}, {key(f) for f in new.findings}
    return ([AuditChange("new", f) for f in new.findings if key(f) not in before]
            + [AuditChange("old", f) for f in old.findings if key(f) not in after])
