"""The library behind `budgetbook actuals` and `budgetbook variance`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from ..atomic import PathLike, check_destination
from ..errors import UsageError, WorkbookError
from ..ledger.model import Actuals, Batch
from ..ledger.sheets import plan_months
from ..ledger.variance import VarianceReport, compute_variance
from ..output.words import plural
from ..planfile.loader import plan_from_text
from ..progress import stage
from ..review.readback import open_book
from ..review.scenario import read_scenario
from ..sheetkit.scenario import PLAN_SCENARIO
from ..workbook.build import build_streamed
from ..workbook.write import save_built
from .bills import BillError, read_bills, sniff
from .formats.kit import clip
from .mapping import load_mapping


@dataclass
class ImportResult:
    written: Path
    actuals: Actuals
    imported: list[Batch] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    previous: list[Batch | None] = field(default_factory=list)  # what each of `imported` replaced (None: added)
    notes: list[str] = field(default_factory=list)              # the files that hold no charges

    def _replaced(self) -> list[Batch | None]:
        return self.previous if len(self.previous) == len(self.imported) else [None] * len(self.imported)

    def as_json(self) -> dict:
        unmapped = [{"what": w, "amount": float(a), "rows": r} for w, a, r in self.actuals.unmapped()]
        return {"workbook": str(self.written), "imported": [
            {"key": b.key, "source": b.source, "format": b.format, "cost_column": b.cost_column, "rows": b.rows,
             "total": float(b.total), "unmapped": float(sum((c.amount for c in b.charges if c.item == "unmapped"),
                                                            Decimal(0))), "replaces": was is not None,
             "categories": {k: float(v) for k, v in b.categories}}
            | ({"replaced_total": float(was.total), "replaced_source": was.source} if was is not None else {})
            for b, was in zip(self.imported, self._replaced(), strict=True)],
            "unmapped": unmapped, "warnings": self.warnings, "notes": self.notes}

    def summary(self) -> list[str]:
        """One line per file's batches: rows, total, mapped, unmapped (every dollar accounted for), and whether
        it was added or replaced a batch (with that one's total); the files with no charges; the totals."""
        lines = list(self.notes)
        for b, was in zip(self.imported, self._replaced(), strict=True):
            unmapped = sum((c.amount for c in b.charges if c.item == "unmapped"), Decimal(0))
            lines.append(f"{b.source}: {b.key}: {plural(b.rows, 'row')}, {b.cost_column} {b.total:,.2f} = mapped "
                         f"{b.total - unmapped:,.2f} + unmapped {unmapped:,.2f}"
                         + (" (" + ", ".join(f"{k or '(none)'} {v:,.2f}" for k, v in b.categories) + ")"
                            if b.categories else "")
                         + (f" (replaces {was.source}'s {was.total:,.2f})" if was is not None else " (added)"))
        pairs = list(zip(self.imported, self._replaced(), strict=True))
        added = sum((b.total for b, was in pairs if was is None), Decimal(0))
        swapped = [(b, was) for b, was in pairs if was is not None]
        if pairs:
            lines.append(f"{plural(len(pairs) - len(swapped), 'batch')} added ({added:,.2f}), "
                         f"{len(swapped):,} replaced "
                         f"({sum((b.total for b, _ in swapped), Decimal(0)):,.2f} where they held "
                         f"{sum((was.total for _, was in swapped), Decimal(0)):,.2f}); the book now holds "
                         f"{sum((b.total for b in self.actuals.batches), Decimal(0)):,.2f}")
        return lines


def import_actuals(book: PathLike, bills: Sequence[PathLike], out: PathLike | None = None, *,
                   mapping: PathLike | None = None, force: bool = False, replace: bool = False) -> ImportResult:
    """Read `bills`, merge them into the book's embedded actuals and write the workbook, regenerated from the
    book's current inputs, with its Actuals and Variance sheets, to `out`. An invoice held is replaced by the
    same rows again; by other rows of it (a later part of an export, a re-export) only with `replace`, else
    one line naming both files (a charge would be lost or changed without a word)."""
    from ..review.extract import current_plan_text  # on first use, not at import: loads ruamel, yaml

    book = Path(book)
    if not bills:
        raise UsageError("give at least one bill file (FOCUS or generic CSV)")
    out = Path(out) if out is not None else book.with_name(f"{book.stem}-actuals.xlsx")
    inputs = [book, *map(Path, bills)] + ([Path(mapping)] if mapping is not None else [])
    check_destination(out, protect=inputs, force=force)
    sniff([Path(b) for b in bills])  # a 2 GB file or a foreign CSV is refused before the workbook is opened
    opened = open_book(book)
    text = current_plan_text(opened)  # the book's current inputs: an edited input is kept, not regenerated away
    plan = plan_from_text(text, f"{book} (current inputs)")
    held: Actuals = opened.actuals if opened.actuals is not None else Actuals(plan.currency)
    if held.currency != plan.currency:
        raise WorkbookError(f"its bills are in {held.currency} but its plan is now in {plan.currency}",
                            source=str(book))
    rules = load_mapping(Path(mapping) if mapping is not None else None, plan)
    stage("reading bills", len(bills), "files")
    imported = read_bills([Path(b) for b in bills], rules, plan)
    clash = held.conflicts(imported.batches)
    if clash and not replace:
        new, was = clash[0]
        names = new.source.split(" + ")  # a batch names its files (joined parts: each), the error their paths
        raise BillError(f"holds invoice {clip(new.key, 80)} ({plural(new.rows, 'row')}, {new.total:,.2f}), "
                        f"which {book} "
                        f"holds from {was.source} with other rows ({plural(was.rows, 'row')}, {was.total:,.2f}): "
                        "give an "
                        "export's parts in one command; to replace the invoice held with these rows (a re-export, "
                        "or all its parts given together), add --replace",
                        source=" + ".join(str(p) for p in dict.fromkeys(Path(b) for b in bills) if p.name in names))
    merged, previous = held.merged_replacing(imported.batches)
    months = set(plan_months(plan))
    outside = sorted({c.month for c in merged.charges} - months)
    if outside:  # the inputs now end the plan before bills imported earlier: they would drop out of the sheets
        raise WorkbookError(f"holds bills of {', '.join(outside)}, outside its plan's months now; extend the plan "
                            "(its `start` and schedule) or import into a workbook whose plan covers them",
                            source=str(book))
    stage("building the workbook")
    save_built(build_streamed(plan, text, actuals=merged), out, protect=inputs)
    replaced = [b.key for b, was in zip(imported.batches, previous, strict=True) if was is not None]
    return ImportResult(out, merged, imported.batches, replaced, imported.warnings, previous, imported.notes)


def book_variance(book: PathLike) -> VarianceReport:
    """The Variance of a workbook: its current inputs' plan, in the scenario its switch is set to, against its
    embedded bills (what `check` holds the Variance sheet to)."""
    from ..review.extract import current_plan_text  # on first use, not at import: loads ruamel, yaml

    book = Path(book)
    opened = open_book(book)
    if opened.actuals is None:
        raise WorkbookError("carries no bills: import them first (`budgetbook actuals BOOK.xlsx BILLS... -o OUT`)",
                            source=str(book))
    plan = plan_from_text(current_plan_text(opened), f"{book} (current inputs)")
    scenario, _ = read_scenario(opened, {})  # a typed choice; anything else reads as base (`check` reports it)
    return compute_variance(plan, opened.actuals, PLAN_SCENARIO[scenario])
