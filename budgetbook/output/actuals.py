"""`budgetbook variance`, `budgetbook actuals` and `budgetbook reforecast` output: table, JSON, CSV and markdown.

`actuals` prints one summary line per batch of bills imported (named by its invoice key:
ProviderName, BillingAccountId, InvoiceId as the bill has them) and `Wrote OUT`, or its JSON;
every text from a bill goes through `plaintext.visible`.

CSV and markdown: one row per market and line item (the market's total after its
lines) with the columns `market,item,label,plan,plan_to_date,actual,variance,
variance_pct,forecast,at_completion` (CSV: then `market_label`); `variance_pct` is a
share (0.1 = 10 %). A plan-only line (a market's GPU lines, inside its GPU spend;
contingency) leaves the columns after `plan_to_date` empty ("plan only" in markdown).
The table prints one block per market, then the unmapped charges.

One look with `show` (issue 26): the table and the Markdown name a market by its label
and print money as `show` does ($1,364,071; a price per GPU-hour with cents, $7.52);
the CSV keeps the id (a key) and raw numbers, with the label in `market_label`.
"""

from __future__ import annotations

import csv
from typing import TextIO

from ..actuals.api import ImportResult
from ..actuals.reforecast import Reforecast
from ..ledger.variance import VarianceReport
from .emit import console as guarded_console
from .emit import line as print_line
from .emit import stdout, warning, wrote
from .envelope import write_report
from .plaintext import csv_text, visible
from .show import money
from .words import plural

COLUMNS = ("plan", "plan_to_date", "actual", "variance", "variance_pct", "forecast", "at_completion")


def render_import(result: ImportResult, fmt: str) -> None:
    """`actuals`: its warnings on stderr, then a summary line per batch and `Wrote OUT`, or the JSON."""
    for found in result.warnings:
        warning(found)
    if fmt == "json":
        write_report("actuals", result.as_json(), currency=result.actuals.currency)
        return
    for summary in result.summary():
        print_line(visible(summary))
    wrote(result.written)


def render_reforecast(result: Reforecast, fmt: str) -> None:
    """`reforecast`: a summary line (and, `--from-actuals`, what it re-estimated), or the JSON."""
    if fmt == "json":
        write_report("reforecast", result.as_json())
        return
    for summary in result.summary():
        print_line(visible(summary))


def render_variance(report: VarianceReport, fmt: str, threshold: float, out: TextIO | None = None, *,
                    workbook: str | None = None) -> None:
    """`variance` of `workbook` in `fmt` (table, json, csv, markdown) on `out` (default: standard output)."""
    {"table": _table, "csv": _csv, "markdown": _markdown,
     "json": lambda r, t, o: write_report("variance", r.as_json(t), o, workbook=workbook)}[fmt](
        report, threshold, stdout(out))


def _safe(text: str) -> str:
    return csv_text(visible(text))  # a spreadsheet would run it (CSV injection)


def _csv(report: VarianceReport, threshold: float, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["market", "item", "label", *COLUMNS, "market_label"])
    for line in report.lines:
        totals = line.totals()
        writer.writerow([_safe(line.market), _safe(line.item), _safe(line.label),
                         *(repr(totals[c]) if c in totals else "" for c in COLUMNS), _safe(report.label(line.market))])


def _markdown(report: VarianceReport, threshold: float, out: TextIO) -> None:
    cell = lambda text: " ".join(visible(text).replace("\\", "\\\\").replace("|", "\\|").split())  # noqa: E731
    out.write("| " + " | ".join(["market", "item", "label", *COLUMNS]) + " |\n")
    out.write("|" + "---|" * 3 + "---:|" * len(COLUMNS) + "\n")
    for line in report.lines:
        totals = line.totals()
        values = ["plan only" if c not in totals else f"{totals[c] * 100:,.1f} %" if c == "variance_pct"
                  else money(totals[c], report.currency) for c in COLUMNS]
        out.write(f"| {cell(report.label(line.market))} | {cell(line.item)} | {cell(line.label)} | "
                  + " | ".join(values) + " |\n")


def _table(report: VarianceReport, threshold: float, out: TextIO) -> None:
    from rich.table import Table
    from rich.text import Text

    console = guarded_console(out, 110)
    cur = report.currency
    cash = lambda value: money(value, cur)  # noqa: E731 - as `show` prints money
    billed = report.months[report.billed - 1] if report.billed else "none"
    console.print(Text(f"{visible(report.plan)}: plan vs bills ({report.currency}), months billed "
                       f"{report.months[0]} to {billed} of {report.months[-1]}"))
    over = {(line.market, line.item) for line in report.over(threshold)}
    for market in dict.fromkeys(line.market for line in report.lines):
        table = Table(title=Text(visible(report.label(market))), title_justify="left")
        for head in ("line item", "plan to date", "actual", "variance", "variance %", "plan", "forecast"):
            table.add_column(head, justify="left" if head == "line item" else "right")
        for line in (ln for ln in report.lines if ln.market == market):
            t = line.totals()
            mark = "  OVER" if (line.market, line.item) in over else ""
            if line.plan_only:
                table.add_row(Text("  " + visible(line.label)), cash(t["plan_to_date"]), "", "", "",
                              cash(t["plan"]), "")
                continue
            table.add_row(Text(visible(line.label) + mark), cash(t["plan_to_date"]), cash(t["actual"]),
                          cash(t["variance"]), f"{t['variance_pct'] * 100:,.1f} %", cash(t["plan"]),
                          cash(t["forecast"]))
        console.print(table)
        _, price = report.prices.get(market, ([], 0.0))
        if price:
            console.print(Text(f"price per GPU-hour: paid {money(price, cur, 2)}, planned "
                               f"{money(report.planned_price.get(market, 0.0), cur, 2)}"))
        hours = report.hours.get(market)
        if hours is not None and any(hours[1]):
            planned_hours, billed_hours = hours
            to_date = sum(planned_hours[:report.billed])
            console.print(Text(f"GPU-hours: billed {sum(billed_hours):,.0f}, planned to date {to_date:,.0f} "
                               f"(implied utilisation vs plan {to_date / sum(billed_hours):.2f}x)"))
    if report.unmapped:
        total = sum(a for _, a, _ in report.unmapped)
        console.print(Text(f"unmapped charges, in no line item ({cash(total)}):"))
        for what, amount, rows in report.unmapped:
            console.print(Text(f"  {visible(what)}: {cash(amount)} ({plural(rows, 'row')})"))
