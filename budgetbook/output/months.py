"""`show --by month`: the development cost month by month, per market, and the cumulative spend.

JSON is `MonthlyBreakdown.as_json`. CSV and markdown give one row per line
item and market (`market,item,label,<month>...,total`), the total of each
market after its lines, then one `cumulative` row per market. The table gives
one block per market: months down, line items across, the cumulative spend last.
Every label and id goes through `plaintext.visible`, as in `show.py`.
"""

from __future__ import annotations

import csv
from typing import TextIO

from ..reference import MonthlyBreakdown
from .emit import console, stdout
from .envelope import write_report
from .plaintext import csv_text, visible
from .show import money

CUMULATIVE = ("cumulative", "Cumulative spend")


def render_months(monthly: MonthlyBreakdown, fmt: str, out: TextIO | None = None) -> None:
    """`show --by month` in `fmt` (table, json, csv, markdown) on `out` (default: standard output)."""
    {"table": _table, "csv": _csv, "markdown": _markdown,
     "json": lambda m, o: write_report("show", m.as_json(), o)}[fmt](monthly, stdout(out))


def _rows(monthly: MonthlyBreakdown):
    """(market, item, label, values, total); the cumulative rows have no total (it would count twice)."""
    for row in monthly.rows:
        yield visible(row.market), visible(row.item), visible(row.label), row.values, row.total
    for market in monthly.markets:
        yield visible(market), *CUMULATIVE, monthly.cumulative(market), None


def _csv(monthly: MonthlyBreakdown, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["market", "item", "label", *monthly.months, "total"])
    for market, item, label, values, total in _rows(monthly):
        writer.writerow([*map(csv_text, (market, item, label)), *map(repr, values),
                         "" if total is None else repr(total)])


def _markdown(monthly: MonthlyBreakdown, out: TextIO) -> None:
    cell = lambda text: " ".join(str(text).replace("\\", "\\\\").replace("|", "\\|").split())  # noqa: E731
    number = lambda v: "" if v is None else f"{v:,.2f}"  # noqa: E731
    out.write("| " + " | ".join(["market", "item", "label", *monthly.months, "total"]) + " |\n")
    out.write("|" + "---|" * 3 + "---:|" * (len(monthly.months) + 1) + "\n")
    for market, item, label, values, total in _rows(monthly):
        out.write(f"| {market} | {item} | {cell(label)} | " + " | ".join(map(number, values))
                  + f" | {number(total)} |\n")


def _table(monthly: MonthlyBreakdown, out: TextIO) -> None:
    from rich.table import Table
    from rich.text import Text

    shown = console(out)
    cur = monthly.currency
    for market in monthly.markets:
        rows = [r for r in monthly.rows if r.market == market]
        table = Table(title=Text(visible(f"{monthly.plan}: {market}, by month ({cur})")), title_justify="left")
        table.add_column("Month")
        for row in rows:
            table.add_column(Text(visible(row.label)), justify="right", style="bold" if row.item == "total" else "")
        table.add_column("Cumulative", justify="right")
        for n, month in enumerate(monthly.months):
            cumulative = monthly.cumulative(market)[n]
            table.add_row(month, *(money(row.values[n], cur) for row in rows), money(cumulative, cur))
        table.add_section()
        table.add_row(Text("Total", style="bold"), *(money(row.total, cur) for row in rows), "")
        shown.print(table)
