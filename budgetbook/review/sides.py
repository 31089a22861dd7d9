"""The two sides of a `diff`: what a plan file, template, workbook or `git:REV:path` holds as a budget.

A workbook is read as `extract` reads it (its current inputs, ranges included,
refusing what `extract` refuses) and audited as `check` audits its formulas and
structure; a file from git history is copied out with `git cat-file` and read
like any other. A reforecast book names either version: `BOOK.xlsx@baseline`, the
plan frozen as its baseline (kept, sealed by the baseline's digest, in its embedded
bills), or `BOOK.xlsx@reforecast`, its current inputs (what `BOOK.xlsx` alone
reads); `git:REV:BOOK.xlsx@baseline` too. Inputs are keyed by id (`workloads[finetune].mfu`), each with
its source note: the comment on that key in the plan's text.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from ..atomic import temp_folder_error
from ..errors import BudgetbookError, PlanError, UsageError, WorkbookError
from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan
from ..reference import Breakdown, compute_breakdown
from ..xlsx.file_bytes import ZIP_MAGICS
from .findings import INPUT_PROBLEMS, Finding

GIT_PREFIX = "git:"
GIT_TIMEOUT = 60.0
MAX_GIT_BLOB = 100_000_000  # the largest workbook `load_xlsx` accepts; a plan is refused far below it
VERSIONS = ("baseline", "reforecast")  # what `BOOK.xlsx@VERSION` may name


# ---------------------------------------------------------------- one side

@dataclass
class Side:
    """One budget as `diff` reads it: its plan (a workbook's current inputs), figures and audit findings."""

    spec: str                 # as given on the command line
    kind: str                 # "plan", "template", "workbook"; a book's "baseline" or "reforecast"
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
    named, version = split_version(spec)
    if named.startswith(GIT_PREFIX):
        return _from_git(named, spec, version)
    path = Path(named)
    if version is not None and not is_workbook(path):
        raise UsageError(f"`{spec}`: `@{version}` names a version of a workbook (.xlsx); `{named}` is not one")
    if is_workbook(path):
        return _from_workbook(path, spec, version)
    from ..planfile.loader import _names_a_file, plan_from_text, resolve  # on first use, not at import: loads yaml

    source, text = resolve(spec)
    plan = plan_from_text(text, source)
    return Side(spec, "plan" if _names_a_file(path) else "template", plan, text, compute_breakdown(plan))


def is_workbook(path: Path) -> bool:
    """A file that is a zip archive (or named .xlsx/.xlsm): read as a workbook, not as plan text."""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        return True
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4).startswith(ZIP_MAGICS)
    except OSError:
        return False


def split_version(spec: str) -> tuple[str, str | None]:
    """`BOOK.xlsx@baseline` -> (`BOOK.xlsx`, "baseline"); a spec naming no version (a file whose own name ends
    so included) as it is, with None."""
    named, sep, version = spec.rpartition("@")
    if sep and named and version in VERSIONS and not Path(spec).exists():
        return named, version
    return spec, None


def baseline_text(book: Any) -> str:
    """The text of the plan an opened reforecast book froze as its baseline; a `WorkbookError` where it has none
    (or froze it before its text was kept, or the hidden copy was edited)."""
    baseline = book.actuals.baseline if book.actuals is not None else None
    where = str(book.path)
    if baseline is None:
        raise WorkbookError("`@baseline`: the book has no baseline (`budgetbook reforecast BOOK -o OUT` freezes "
                            "its plan as one)", source=where)
    if not baseline.plan_text:
        raise WorkbookError(f"`@baseline`: its baseline was frozen {baseline.frozen} by a budgetbook that kept only "
                            "its figures (the Baseline sheet), not its plan: reforecast the book it came from again",
                            source=where)
    if baseline.digest != baseline.expected_digest():
        raise WorkbookError("`@baseline`: its baseline (hidden sheet `_actuals`) does not match its digest: it was "
                            "edited after it was frozen", source=where)
    return baseline.plan_text


def _from_workbook(path: Path, spec: str, version: str | None = None) -> Side:
    """A workbook's current inputs, read as `extract` reads them (refusing what it refuses), and its edits; with
    `version` "baseline", the plan it froze as its baseline instead."""
    from ..plan.yamlsafe import parse_yaml_text  # on first use, not at import: loads yaml
    from ..planfile.loader import plan_from_data, plan_from_text  # on first use, not at import: loads yaml
    from . import audit, structure  # on first use, not at import: loads yaml
    from .extract import current_ranges, rewrite_plan  # on first use, not at import: loads ruamel, yaml
    from .readback import evaluate_formula_inputs, open_book, read_inputs  # on first use, not at import: loads yaml

    book = open_book(path)
    if version == "baseline":
        text = baseline_text(book)
        plan = plan_from_text(text, f"{spec} (the plan frozen as its baseline)")
        findings = audit.formula_edits(book) + structure.audit_structure(book)
        return Side(spec, "baseline", plan, text, compute_breakdown(plan), findings)
    cells = input_cells(book.plan)
    values, problems = read_inputs(book, cells, evaluate_formula_inputs(book, cells), {})
    problems = [f for f in problems if f.kind in INPUT_PROBLEMS]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise WorkbookError(f"{problems[0].where}: {problems[0].message}{more}", source=str(path))
    text = rewrite_plan(book.plan_text, current_ranges(book, cells, values), book)
    # shaped like the embedded plan (same ids): laid out once already, not again
    try:
        plan = plan_from_data(parse_yaml_text(text), f"{path} (current inputs)", shaped_like=book.plan)
    except PlanError as exc:  # a rule across inputs: named by its cell
        from .input_cell_errors import as_workbook_error  # on first use, not at import: loads yaml

        raise as_workbook_error(book, cells, exc) from None
    findings = audit.formula_edits(book) + structure.audit_structure(book)
    return Side(spec, version or "workbook", plan, text, compute_breakdown(plan), findings)


def _from_git(spec: str, named: str | None = None, version: str | None = None) -> Side:
    """`git:REV:path`: the file as committed at REV, read with `git cat-file` from the current directory.

    `cat-file blob` (what `git show REV:path` prints for a file, minus any textconv filter); the path is
    git's: from the top of the repository, or `./path` from the current directory. `named` is the spec as given
    (with its `@VERSION`), `version` the book's version it names.
    """
    named = named or spec
    rev, sep, path = spec[len(GIT_PREFIX):].partition(":")
    if not sep or not rev or not path:
        raise UsageError(f"`{spec}`: expected git:REV:path (for example git:HEAD~1:plan.yaml)")
    commit = _commit(rev, spec)
    object_name = f"{commit}:{path}"  # a commit's hash first: it cannot be read as an option
    try:
        size = _git(["cat-file", "-s", object_name], spec).strip()
    except UsageError as exc:  # git names the commit by its hash: name it as the user did
        raise UsageError(exc.reason.replace(commit, rev)) from None
    if not size.isdigit() or int(size) > MAX_GIT_BLOB:
        raise UsageError(f"`{spec}`: {size} bytes is more than a plan or workbook may hold")
    try:  # a failure here is the temporary folder's, not the revision's
        scratch = tempfile.TemporaryDirectory(prefix="budgetbook-diff-")
    except OSError as exc:
        raise temp_folder_error(exc) from None
    with scratch as tmp:
        copy = Path(tmp) / (Path(path).name or "blob")
        try:
            with open(copy, "wb") as out:
                _git(["cat-file", "blob", object_name], spec, stdout=out)
        except OSError as exc:
            raise temp_folder_error(exc) from None
        try:
            if version is not None or is_workbook(copy):
                side = _from_workbook(copy, named, version)
            else:
                from ..plan.yamlsafe import read_plan_text  # on first use, not at import: loads yaml
                from ..planfile.loader import plan_from_text  # on first use, not at import: loads yaml

                text = read_plan_text(copy)
                plan = plan_from_text(text, spec)
                side = Side(named, "plan", plan, text, compute_breakdown(plan))
        except BudgetbookError as exc:  # it names the temporary copy: name what the user gave
            exc.source = named
            raise
    return side


def _commit(rev: str, spec: str) -> str:
    """The commit `rev` names, as its full hash; a revision that looks like an option is never given to git.

    `rev-parse --verify` after `--end-of-options` takes `rev` as a revision whatever it spells, and `^{commit}`
    holds it to a commit (not a tree, a blob or a range).
    """
    if rev.startswith("-"):
        raise UsageError(f"`{spec}`: a revision cannot start with `-` (git would read `{rev}` as an option)")
    found = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], spec,
                 failed=f"`{rev}` is not a commit in this repository").strip()
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", found):
        raise UsageError(f"`{spec}`: `{rev}` is not a commit in this repository")
    return found


def _git(args: list[str], spec: str, stdout: Any = None, failed: str | None = None) -> str:
    try:
        done = subprocess.run(["git", *args], stdout=stdout if stdout is not None else subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise UsageError(f"`{spec}`: git is not installed (needed to read a file from git history)") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"`{spec}`: git did not answer within {GIT_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        reason = next((line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()),
                      failed or f"git exited with {done.returncode}")
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


@dataclass(frozen=True)
class Unreadable:
    """A file `textconv` cannot read as a budget: why, and its text (None when it is not text: its size and
    SHA-256 instead)."""

    path: Path
    reason: str
    text: str | None
    size: int
    sha256: str | None
