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
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..errors import UsageError
from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..plan.numbers import Num
from ..progress import stage
from ..reference import Breakdown
from .compare import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, close_enough
from .findings import Finding
from .shape import entities
from .sides import Side, id_key, load_side

__all__ = ["BudgetDiff", "Side", "diff_budgets", "id_key", "load_side"]


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

    def label(self, market: str) -> str:
        """The market as a table names it: its label on the new side, else the old (a market gone), else its id."""
        for side in (self.new, self.old):
            found = next((m.label for m in side.plan.markets if m.id == market and m.label), None)
            if found:
                return found
        return market

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
    stage("reading the old budget")
    old = load_side(old_spec)
    stage("reading the new budget")
    new = load_side(new_spec)
    if old.plan.currency != new.plan.currency:
        import warnings

        warnings.warn(f"{old_spec} is in {old.plan.currency}, {new_spec} in {new.plan.currency}: the deltas "
                      "subtract one from the other as they are, unconverted", stacklevel=2)
    stage("comparing")
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
        elif not _same(before[key][0].num, cell.num) and not _defaulted(before[key][0], cell):
            changes.append(InputChange(key, "changed", cell.label, before[key][0].num, cell.num,
                                       note or before[key][1]))
    changes += [InputChange(key, "removed", cell.label, cell.num, None, note)
                for key, (cell, note) in before.items() if key not in after]
    return changes


def _defaulted(old: InputCell, new: InputCell) -> bool:
    """Neither plan writes the input: its default followed another input (a feature's months, serving's),
    whose own change is listed; the figures show the effect."""
    return old.note.startswith("default:") and new.note.startswith("default:")


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
    changes += _adjustments(old.plan, new.plan)
    for key in dict.fromkeys([*settings_after, *settings_before]):
        if key in numeric or key.split(".")[0] in gone or key.startswith("adjustments"):
            continue  # an input (listed with the inputs), a key of an entry added or removed as a whole, or
            # an adjustment's (`_adjustments`: one change per adjustment)
        was, now = settings_before.get(key), settings_after.get(key)
        if was != now:
            change = "changed" if was is not None and now is not None else "added" if was is None else "removed"
            changes.append(StructureChange("setting", key, change, was, now))
    return changes


def _adjustments(old: Plan, new: Plan) -> list[StructureChange]:
    """Finance's own lines (issue 31) as their own kind: one change per adjustment, by position,
    old and new the whole entry (label, market, item, month, amount, note)."""
    before = [a.model_dump() for a in getattr(old, "adjustments", None) or []]
    after = [a.model_dump() for a in getattr(new, "adjustments", None) or []]
    changes = []
    for n in range(max(len(before), len(after))):
        was = before[n] if n < len(before) else None
        now = after[n] if n < len(after) else None
        if was != now:
            change = "changed" if was is not None and now is not None else "added" if was is None else "removed"
            changes.append(StructureChange("adjustment", f"adjustments[{n}]", change, was, now))
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
