"""Bills read out of core: DuckDB scans each file and aggregates it by invoice, month and mapping rule in SQL.

Python never holds the rows. Each file's format (FOCUS 1.0 to 1.4 and its side
datasets, the generic CSV; in CSV or Parquet) is told apart by its header and read
by its module in `formats/` (`formats.registry` lists them); the files with no
charges (a FOCUS Contract Commitment dataset) are read first, as the others'
rules may match against them.

Within one import, two files holding the same invoice with other rows are parts of it
(AWS, Azure and Google split a month's FOCUS export into several files; a generic bill's
`invoice` may span files): they are joined into one batch, both counted (`join_parts`);
the same rows given twice count once. Across imports, the same rows again replace the
invoice held; other rows of it are refused unless replacing is asked for
(`Actuals.conflicts`, `actuals.api`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BudgetbookError
from ..ledger.model import Batch
from ..lineitems.phasing import month_count
from ..output.words import plural
from ..plan.model import Plan
from ..plan.timing import month_labels
from .formats.kit import BillError, Context, clip, duckdb_connection, joined
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
        read: list[tuple[Batch, str, Path]] = []
        for side in (True, False):
            for source, fmt in opened:
                if fmt.side == side:
                    try:
                        read += [(b, fmt.name, source.path) for b in fmt.read(ctx, source)]
                    except BudgetbookError as exc:
                        raise exc.with_source(str(source.path)) from None
        out.batches = join_parts(read, ctx.notes)
        for finish in ctx.finish:
            finish(out.batches)
        out.warnings, out.notes = ctx.warnings, ctx.notes
    return out


def join_parts(read: list[tuple[Batch, str, Path]], notes: list[str]) -> list[Batch]:
    """The batches of one import, an invoice's parts (other files, other rows: a FOCUS export in parts, a generic
    bill's `invoice` given in two files) joined into one. The same
    rows again (a copy of a bill or of a part, a generic bill given twice) count once: dropped, and noted.
    A part in another FOCUS version than the first is refused
    (the same invoice exported twice, which would count twice)."""
    out: list[Batch] = []
    at: dict[str, int] = {}                          # invoice key -> its batch in `out`
    parts: dict[str, dict[str, tuple[str, Path]]] = {}  # invoice key -> digest -> (format, file) of each part
    for b, fmt, path in read:
        if not b.digest:  # a generic bill without an `invoice`: its key holds its digest
            if b.key in at:  # the same rows again (a copy): counted once
                notes.append(f"{path.name}: {b.key}: the same {plural(b.rows, 'row')} as {out[at[b.key]].source}, "
                             "counted once")
                continue
            at[b.key] = len(out)
            out.append(b)
            continue
        if b.key not in at:
            at[b.key], parts[b.key] = len(out), {b.digest: (fmt, path)}
            out.append(b)
            continue
        seen = parts[b.key]
        if b.digest in seen:  # the same bill (or part) given again: counted once
            notes.append(f"{path.name}: {b.key}: the same {plural(b.rows, 'row')} as {seen[b.digest][1].name}, "
                         "counted once")
            continue
        first_fmt, first_path = next(iter(seen.values()))
        if fmt != first_fmt:
            raise BillError(f"holds invoice {clip(b.key, 80)} as {first_path} does, but in {fmt} where that is "
                            f"{first_fmt}: the same invoice exported twice would count twice; import one of them",
                            source=str(path))
        seen[b.digest] = (fmt, path)
        out[at[b.key]] = joined(out[at[b.key]], b)
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
