"""What every bill format reads with: the DuckDB connection, SQL literals, errors, the batch builder.

DuckDB is bounded by `MEMORY_LIMIT` and spills to a private temporary directory,
so a year of exports costs a few hundred MB whatever its size.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...errors import BudgetbookError
from ...ledger.model import Batch, Charge
from ...output.plaintext import visible
from ...output.words import plural
from ...plan.model import Plan
from ..mapping import Mapping

MEMORY_LIMIT = "256MB"
THREADS = 2


class BillError(BudgetbookError):
    """An unreadable or invalid bill file."""


@dataclass
class Context:
    """One import: the connection, the mapping and plan every file is read against, what they report."""

    con: Any
    mapping: Mapping
    plan: Plan
    months: list[str]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)      # summary lines of files that hold no charges
    commitments: bool = False                           # a FOCUS Contract Commitment dataset is loaded
    # run on every batch of the import once all files are read (a side dataset that holds the others to account)
    finish: list[Callable[[list[Batch]], None]] = field(default_factory=list)


@contextlib.contextmanager
def duckdb_connection() -> Iterator[Any]:
    import duckdb

    spill = tempfile.mkdtemp(prefix="budgetbook-duckdb-")
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": THREADS, "temp_directory": spill,
                                 "preserve_insertion_order": False, "enable_external_access": True})
    try:
        with contextlib.suppress(duckdb.Error):  # Parquet timestamps with a time zone read as UTC, as FOCUS writes
            con.execute("SET TimeZone = 'UTC'")
        quiet(con)
        yield con
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def quiet(con: Any) -> Any:
    """No progress bar on the terminal (DuckDB draws one on a query over 2 s)."""
    con.execute("SET enable_progress_bar = false")
    return con


def lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def col(name: str, header: list[str]) -> str:
    """The quoted column, or NULL where the file has no such column."""
    return '"' + name.replace('"', '""') + '"' if name in header else "NULL"


def text(name: str, header: list[str]) -> str:
    """The column trimmed, '' where empty or absent."""
    return f"coalesce(trim({col(name, header)}), '')"


def first_of(names: tuple[str, ...], header: list[str]) -> str:
    """The first of `names` the row fills (trimmed), '' when none: a column a later FOCUS version renamed."""
    present = [f"nullif(trim({col(n, header)}), '')" for n in names if n in header]
    return f"coalesce({', '.join(present)}, '')" if present else "''"


def clip(value: Any, width: int = 60) -> str:
    shown = visible(str(value))
    return repr(shown if len(shown) <= width else shown[: width - 3] + "...")


def run(con: Any, sql: str, params: list | None = None, what: str = "CSV") -> list[tuple]:
    import duckdb

    try:
        return con.execute(sql, params or []).fetchall()
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BillError(f"cannot be read as {what}: {clip(first, 200)}") from None


def rate_sql(currency: str, mapping: Mapping, plan: Plan) -> tuple[str, list]:
    """The plan-currency rate of each row's currency, as SQL and its parameters."""
    cases, params = [], []
    for cur in sorted(mapping.rates):
        if cur != plan.currency:
            cases.append("WHEN ? THEN CAST(? AS DECIMAL(38,10))")
            params += [cur, str(Decimal(str(mapping.rates[cur])))]
    if not cases:
        return "CAST(1 AS DECIMAL(38,10))", []
    return f"(CASE trim({currency}) {' '.join(cases)} ELSE CAST(1 AS DECIMAL(38,10)) END)", params


def batch(key: str, path: Path, fmt: str, cost_column: str, charges: list[Charge],
          categories: dict[str, Decimal] | None = None,
          other: tuple[str, Decimal, Decimal] | None = None, digest: str = "") -> Batch:
    found = _one_line_each(charges)
    return Batch(key, path.name, fmt, cost_column, sum(c.rows for c in found), sum((c.amount for c in found),
                 Decimal(0)), found, tuple(sorted((categories or {}).items())), other, digest)


def joined(first: Batch, part: Batch) -> Batch:
    """Two parts of one invoice's export (two files, other rows) as one batch: every charge and total of both."""
    categories = dict(first.categories)
    for k, v in part.categories:
        categories[k] = categories.get(k, Decimal(0)) + v
    other = None
    if first.other is not None and part.other is not None:
        other = (first.other[0], first.other[1] + part.other[1], first.other[2] + part.other[2])
    found = _one_line_each([*first.charges, *part.charges])
    return Batch(first.key, f"{first.source} + {part.source}", first.format, first.cost_column,
                 first.rows + part.rows, first.total + part.total, found, tuple(sorted(categories.items())), other,
                 digest_sum(first.digest, part.digest))


def content_digest(upper: int, lower: int, rows: int) -> str:
    """A batch's rows' digest: the sums (mod 2**64) of each row's MD5 halves over its columns' text, and how many
    rows; the order of rows aside, and two parts' digests add up to their whole's (`digest_sum`)."""
    return f"{upper % 2**64:016x}{lower % 2**64:016x}:{rows}"


def digest_sum(first: str, part: str) -> str:
    """The digest of two parts' rows together (`content_digest`); "" where either is unknown."""
    if not first or not part:
        return ""
    (a, n), (b, m) = first.split(":"), part.split(":")
    return content_digest(int(a[:16], 16) + int(b[:16], 16), int(a[16:], 16) + int(b[16:], 16), int(n) + int(m))


def _one_line_each(charges: list[Charge]) -> tuple[Charge, ...]:
    merged: dict[tuple, Charge] = {}
    for c in charges:  # a rule's charges of one month, whatever else they differed in, are one line
        k = (c.month, c.market, c.item, c.workload, c.detail)
        was = merged.get(k)
        merged[k] = c if was is None else Charge(c.month, c.market, c.item, c.workload, was.amount + c.amount,
                                                 was.gpu_hours + c.gpu_hours, was.rows + c.rows, c.detail)
    return tuple(merged.values())


def warn_formula_text(con: Any, scan: str, header: list[str], path: Path, warnings: list[str],
                      texts: tuple[str, ...]) -> None:
    """List the text fields that a spreadsheet would run as a formula (CSV injection): they stay text."""
    present = [h for h in texts if h in header]
    if not present:
        return
    starts = " OR ".join(f"left(ltrim({col(h, header)}), 1) IN ('=', '+', '@')" for h in present)
    count = run(con, f"SELECT count(*) FROM {scan} WHERE {starts}")[0][0]
    if count:
        warnings.append(f"{path}: {plural(count, 'row')} hold{'s' if count == 1 else ''} "
                        "text starting with `=`, `+` or `@` (a CSV formula "
                        "injection such as =HYPERLINK(...)); it is written as text, never as a formula")
