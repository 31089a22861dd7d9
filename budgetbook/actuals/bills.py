"""Bills read out of core: DuckDB scans each file and aggregates it by invoice, month and mapping rule in SQL.

Python never holds the rows. Each file's format (FOCUS 1.0 to 1.4 and its side
datasets, the generic CSV; in CSV or Parquet) is told apart by its header and read
by its module in `formats/` (`formats.registry` lists them); the files with no
charges (a FOCUS Contract Commitment dataset) are read first, as the others'
rules may match against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BudgetbookError
from ..ledger.model import Batch
from ..lineitems.phasing import month_count
from ..plan.model import Plan
from ..plan.timing import month_labels
from .formats.kit import BillError, Context, duckdb_connection
from .formats.registry import BillFormat, detect
from .formats.source import Source, open_source
from .mapping import Mapping

__all__ = ["BillError", "Imported", "read_bills", "sniff"]


@dataclass
class Imported:
    batches: list[Batch] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # files that hold no charges, one line each


def read_bills(paths: list[Path], mapping: Mapping, plan: Plan) -> Imported:
    """Every file's batches, in order; one `BillError` line naming the file on the first bad one."""
    months = _plan_months(plan)
    opened = sniff(paths)
    out = Imported()
    with duckdb_connection() as con:
        ctx = Context(con, mapping, plan, months)
        for side in (True, False):
            for source, fmt in opened:
                if fmt.side == side:
                    try:
                        out.batches += fmt.read(ctx, source)
                    except BudgetbookError as exc:
                        raise exc.with_source(str(source.path)) from None
        for finish in ctx.finish:
            finish(out.batches)
        out.warnings, out.notes = ctx.warnings, ctx.notes
    return out


def sniff(paths: list[Path]) -> list[tuple[Source, BillFormat]]:
    """Refuse, before any workbook is opened, a bill that is too big, empty or of no format; each file's format."""
    found = []
    for path in paths:
        try:
            source = open_source(path)
            found.append((source, detect(source.header)))
        except BudgetbookError as exc:
            raise exc.with_source(str(path)) from None
    return found


def _plan_months(plan: Plan) -> list[str]:
    if plan.start is None:
        raise BillError("the plan gives no `start` month, so dated bills cannot be placed in its months: "
                        "add `start: YYYY-MM` to the plan", source=f"{plan.name} (plan)")
    return month_labels(plan.start, month_count(plan))
