"""What every format holds a bill to before it aggregates: numbers, calendar dates, currencies, its row count.

A date is calendar-true: `YYYY-MM`, `YYYY-MM-DD`, or that with a time
(`THH:MM[:SS[.fff]]`) and a zone (`Z`, `+HH:MM`); `2026-02-31T00:00:00Z` and
`2026-01-99garbage` are refused, and no year past 9999. A bad value is named by its
file's line (a CSV) or row (Parquet), found by a second, ordered scan on that error
path only. The rows the reader returned are held to the count over the file's bytes
(`records`): a row it skipped is an error naming its line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...output.words import plural
from .kit import THREADS, BillError, Context, clip, run
from .source import Source

MONTH = "[0-9]{4}-(0[1-9]|1[0-2])"
# the shape of a date; the day is then held to the calendar by a cast
DATE_SHAPE = (MONTH + r"(-[0-3][0-9]([T ]([01][0-9]|2[0-3]):[0-5][0-9](:([0-5][0-9]|60)(\.[0-9]{1,9})?)?"
              r"(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?)?)?")


def date_ok(date: str) -> str:
    """SQL: the trimmed text `date` is a calendar date in one of the accepted shapes."""
    d = f"coalesce(trim({date}), '')"
    return (f"(regexp_full_match({d}, '{DATE_SHAPE}') AND (length({d}) = 7 OR "
            f"TRY_CAST(substr({d}, 1, 10) AS DATE) IS NOT NULL))")


def number_ok(value: str, optional: bool) -> str:
    cast = f"TRY_CAST(trim({value}) AS DECIMAL(38,10)) IS NOT NULL"
    return f"(nullif(trim({value}), '') IS NULL OR {cast})" if optional else f"({cast})"


@dataclass(frozen=True)
class Columns:
    """The SQL of the columns held here, and their names in the file (for the messages)."""

    cost: str
    date: str
    currency: str
    quantity: str
    names: dict[str, str]   # cost, date, quantity, currency -> the file's column name


def validate(ctx: Context, source: Source, scan: str, cols: Columns, *, empty_currency_ok: bool = False) -> int:
    """Refuse non-numeric costs and quantities, dates that are not dates, months outside the plan, currencies
    without a rate, and a row count other than the file's; the rows read."""
    checks = {"cost": number_ok(cols.cost, False), "date": date_ok(cols.date),
              "quantity": number_ok(cols.quantity, True)}
    parts = ", ".join(f"count(*) FILTER (WHERE NOT {ok}), min({getattr(cols, k)}) FILTER (WHERE NOT {ok})"
                      for k, ok in checks.items())
    row = run(ctx.con, f"""
        SELECT count(*), {parts}, list(DISTINCT coalesce(trim({cols.currency}), '')),
               list(DISTINCT substr(trim({cols.date}), 1, 7)) FILTER (WHERE {checks['date']})
        FROM {scan}""")[0]
    rows, currencies, seen = row[0], row[-2], row[-1]
    hold_count(source, rows)
    if rows == 0:
        raise BillError("has a header but no charges")
    for n, key in enumerate(checks):
        bad = row[1 + 2 * n]
        if bad:
            _refuse_value(ctx, source, key, checks[key], getattr(cols, key), cols.names[key], bad, rows)
    outside = sorted(m for m in seen if m not in ctx.months)
    if outside:
        raise BillError(f"has charges dated {', '.join(outside[:6])}{' ...' if len(outside) > 6 else ''}, outside "
                        f"the plan's months {ctx.months[0]} to {ctx.months[-1]}; give bills of the plan's months only")
    for cur in sorted(currencies):
        if cur == "" and not empty_currency_ok:
            raise BillError(f"{cols.names['currency']} is empty on some rows; FOCUS gives every charge its currency")
        if cur and ctx.mapping.rate(cur, ctx.plan.currency) is None:
            raise BillError(f"is billed in {clip(cur)} but the plan is in {ctx.plan.currency}: add its rate to the "
                            f"mapping file (`rates: {{{cur}: <{ctx.plan.currency} per {cur}>}}`) or give bills in "
                            f"{ctx.plan.currency}")
    return rows


def hold_count(source: Source, rows: int) -> None:
    """The reader's row count against the count over the file's bytes: a row it did not return is named."""
    if source.records is None or rows == source.records.count:
        return
    expected = source.records.count
    if rows < expected:
        raise BillError(f"the CSV reader returned {rows:,} of its {plural(expected, 'row')}: "
                        f"{source.where(rows)} and any "
                        "after it were not read (refused rather than dropped; re-export the bill)")
    raise BillError(f"the CSV reader returned {plural(rows, 'row')} where the file holds {expected:,}: a line break it "
                    "read apart from the file's quoting; re-export the bill")


def hold_aggregate(source: Source, validated: int, aggregated: int) -> None:
    """Every validated row became a charge."""
    if aggregated != validated:
        raise BillError(f"{validated - aggregated:,} of its {validated:,} rows were not turned into charges; this "
                        "is a bug of budgetbook, please report it")


_WHAT = {"cost": "is not a number", "date": "is not a calendar date (YYYY-MM, YYYY-MM-DD or an ISO 8601 time "
         "such as 2026-01-31T00:00:00Z)", "quantity": "is not a number"}


def _refuse_value(ctx: Context, source: Source, key: str, ok: str, value: str, name: str, bad: int,
                  rows: int) -> None:
    at, example = _first_bad(ctx, source, ok, value)
    more = f" ({bad:,} of its {plural(rows, 'row')})" if bad > 1 else ""
    raise BillError(f"{at}: {name} {clip(example if example is not None else '')} {_WHAT[key]}{more}")


def _first_bad(ctx: Context, source: Source, ok: str, value: str) -> tuple[str, Any]:
    """Where the first row failing `ok` is (its line), by a scan in file order (insertion order kept, one thread)
    streamed in batches (a window function would hold every row), on the import's connection (one memory
    limit): the error path only. The parallel reader (the sequential one takes ~340 MB at 465 MB of CSV) is
    safe here: `hold_count` has held its rows to the count over the file's bytes already."""
    import duckdb

    con = ctx.con
    try:
        con.execute("SET threads = 1")
        con.execute("SET preserve_insertion_order = true")
        result = con.execute(f"SELECT {ok}, CASE WHEN {ok} THEN NULL ELSE {value} END "
                             f"FROM {source.scan()}")
        row = 0
        while batch := result.fetchmany(100_000):
            for good, example in batch:
                if not good:
                    return source.where(row), example
                row += 1
    except duckdb.Error as exc:
        raise BillError(f"cannot be read as CSV: {clip(str(exc).strip().splitlines()[0], 200)}") from None
    finally:
        con.execute(f"SET threads = {THREADS}")
        con.execute("SET preserve_insertion_order = false")
    return "a row", None
