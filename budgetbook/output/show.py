"""`show`'s and `check`'s outputs: the table, CSV, Markdown and JSON of a Breakdown, and of a CheckReport.

The table keeps seed 003's three magnitudes apart: the development cost lines
and their total first, then the final-run compute and the serving cost, under
their own heading, so nobody reads them as parts of the total.

Every text these outputs print comes from a plan or a workbook, so it goes
through `plaintext.visible`: a label's control characters are shown, never
sent to the terminal or into a CSV cell. JSON is `Breakdown.as_json`.
"""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, TextIO

from ..lineitems.gap import LINES as GAP_LINES
from ..lineitems.registry import beside_total_ids
from ..lineitems.stages import PER_EXPERIMENT, STAGES, per_budget
from ..lineitems.units import EXPERIMENT_BUDGET
from ..physics.model import physics_rows
from ..reference import Breakdown, Figure
from ..workbook.write import Written
from .emit import console as guarded_console
from .emit import line as print_line
from .emit import stdout
from .envelope import write_report
from .physics import render_physics_table
from .plaintext import csv_text, visible
from .words import plural

if TYPE_CHECKING:  # types only: `show PLAN` reads no workbook, and the checker loads openpyxl (~0.3 s)
    from ..review.check import CheckReport

COLUMNS = ("name", "item", "market", "label", "value", "low", "high")
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
# a saving under this is said to the cent: two markets $0.06 apart must not read "saves $0"
CENTS_BELOW = 1_000


def money(value: float, currency: str, decimals: int = 0) -> str:
    """An amount as every table prints it: $1,364,071 (a price: `decimals=2`, $7.52); 1,364,071 CHF."""
    symbol = SYMBOLS.get(currency)
    text = f"{abs(value):,.{decimals}f}"
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {currency}"


def money_range(figure: Figure, currency: str) -> str:
    """A figure's best and worst case as the table prints them, the lower first: "$0 to $4,000" (a line can be
    dearer in the best case, a saving larger; "to", as diff's ranges, since a hyphen reads as a minus sign)."""
    if figure.low is None or figure.high is None:
        return ""
    low, high = sorted((figure.low, figure.high))
    return f"{money(low, currency)} to {money(high, currency)}"


def render(breakdown: Breakdown, fmt: str, out: TextIO | None = None) -> None:
    """`show` in `fmt` (table, json, csv, markdown) on `out` (default: standard output), behind the guard."""
    {"table": render_table, "csv": render_csv, "markdown": render_markdown,
     "json": lambda b, o: write_report("show", b.as_json(), o)}[fmt](breakdown, stdout(out))


def render_table(breakdown: Breakdown, out: TextIO) -> None:
    """Markets side by side, by label; a line item a row, its range below its value; then one line
    naming the cheapest market and what it saves against the dearest."""
    from rich.table import Table
    from rich.text import Text

    cur = breakdown.currency
    labels = market_labels(breakdown)
    table = Table(title=Text(visible(f"{breakdown.plan} ({cur})")), title_justify="left")
    # every range on one line (market labels wrap in the header instead), even when stdout is not a terminal
    widest = max((len(money_range(f, cur)) for f in breakdown.figures), default=0)
    table.add_column("Line item", min_width=20)
    for market in breakdown.markets:
        table.add_column(Text(visible(labels[market])), justify="right", min_width=max(widest, 12))
    by = {(f.item, f.market): f for f in breakdown.figures}
    items = list(dict.fromkeys(f.item for f in breakdown.figures))
    beside_total, gaps = beside_total_ids(), {line.id for line in GAP_LINES}
    groups = ([i for i in items if i not in beside_total and i not in gaps], [i for i in items if i in beside_total],
              [i for i in items if i in gaps])
    for group, shown in enumerate(groups):
        beside = group > 0
        if beside and shown:
            table.add_section()
            table.add_row(Text(GROUP_TITLES[group], style="italic"))
        for item in shown:
            figures = [by.get((item, market)) for market in breakdown.markets]
            label = next(f.label for f in figures if f is not None)
            bold = "bold" if item == "total" else ""
            cells = [Text("") if f is None else Text(money(f.value, cur), style=bold) +
                     (Text("\n" + money_range(f, cur), style="dim") if f.low is not None else Text(""))
                     for f in figures]
            note = BESIDE_NOTES.get(item, "") if beside else ""
            table.add_row(Text(("  " if beside else "") + visible(label) + note, style=bold), *cells)
    needed = 28 + (max(widest, 12) + 3) * len(breakdown.markets)
    console = guarded_console(out, max(100, needed))
    console.print(table)
    if any(f.low is not None for f in breakdown.figures):  # what the dim second line of a cell is
        console.print(Text("Under each value: that line in the total's best and worst case, the lower first, "
                           "not a range of its own.", style="dim"))
    line = decision_line(breakdown)
    if line:
        console.print(Text(visible(line)))
    for line in ownership_lines(breakdown):
        console.print(Text(visible(line)))
    line = experiments_line(breakdown)
    if line:
        console.print(Text(visible(line)))
    render_physics_table(breakdown.source, out)


GROUP_TITLES = ("", "beside the total, not added to it:",
                "the gap to the cheapest, by category (adds up to what the cheapest saves):")
# what a figure beside the total is, so nobody reads it as missing from the total (issue 13)
BESIDE_NOTES = {"final_run": " (inside Compute)", "serving": " (after training, never added)",
                "serving_api": " (the same tokens bought, an alternative)",
                "owned_book_value": " (the asset left, never added)",
                **{stage.line.id: " (inside Compute)" for stage in STAGES}}


def experiments_line(breakdown: Breakdown) -> str:
    """"Experiments per 10,000 USD: X 1.3, Y 2.6" (seed 000's count, as Summary has it), where the plan has some."""
    costs = {f.market: f.value for f in breakdown.figures if f.item == PER_EXPERIMENT.id}
    if not costs:
        return ""
    labels = market_labels(breakdown)
    shown = ", ".join(f"{labels[m]} {per_budget(cost):,.1f}" for m, cost in costs.items())
    return f"Experiments per {EXPERIMENT_BUDGET:,} {breakdown.currency}: {shown}"


def market_labels(breakdown: Breakdown) -> dict[str, str]:
    """Each market's label (its id where it has none), as the workbook's headers say."""
    source = getattr(breakdown, "source", None)
    markets = {m.id: m.label or m.id for m in getattr(source, "markets", [])}
    return {market: markets.get(market, market) for market in breakdown.markets}


def decision_line(breakdown: Breakdown) -> str:
    """"Cheapest: X, $T total development cost (best $L, worst $H); saves $S (P%) against the next cheapest,
    Y" (as Summary's decision rows; the range where the plan has one)."""
    totals = {f.market: f.value for f in breakdown.figures if f.item == "total"}
    if len(totals) < 2:
        return ""
    labels = market_labels(breakdown)
    cheapest = min(totals, key=lambda m: totals[m])
    # what the cheapest saves against a market: its total less the cheapest's (Summary's and Procurement's
    # "Cheapest saves against this market"); said here against the next cheapest, the real alternative
    runner_up = min((m for m in totals if m != cheapest), key=lambda m: totals[m])
    saving = totals[runner_up] - totals[cheapest]
    share = f" ({_share(saving / totals[runner_up])})" if totals[runner_up] > 0 else ""
    said = money(saving, breakdown.currency, 2 if saving < CENTS_BELOW else 0)
    low, high = next((f.low, f.high) for f in breakdown.figures if f.item == "total" and f.market == cheapest)
    ranged = (f" (best {money(low, breakdown.currency)}, worst {money(high, breakdown.currency)})"
              if low is not None and high is not None else "")
    return (f"Cheapest: {labels[cheapest]}, {money(totals[cheapest], breakdown.currency)} total development cost"
            f"{ranged}; saves {said}{share} against the next cheapest, "
            f"{labels[runner_up]}")


def _share(share: float) -> str:
    """A saving's share as the decision line says it: 20.0%, or "under 0.1%" where it would round to 0.0%."""
    return "under 0.1%" if 0 < share < 0.0005 else f"{share:.1%}"


def ownership_lines(breakdown: Breakdown) -> list[str]:
    """Per owned market: "Own cluster: $2.70 per delivered GPU-hour; owning beats Hyperscaler above 55%
    utilization; ...; this plan keeps it 77% busy" (the base case; `reference.ownership`)."""
    labels, out = market_labels(breakdown), []
    for entry in breakdown.ownership_json().get("ownership", []):
        per_hour = entry["cost_per_gpu_hour"]
        symbol = SYMBOLS.get(breakdown.currency)
        cents = f"{symbol}{per_hour:,.2f}" if symbol else f"{per_hour:,.2f} {breakdown.currency}" \
            if per_hour is not None else ""
        cost = f"{cents} per delivered GPU-hour" if per_hour is not None else "no busy hours"
        beats = [f"owning beats {labels.get(m, m)} above {share:.0%} utilization" if share is not None
                 else f"owning never beats {labels.get(m, m)}" for m, share in entry["breakeven_utilization"].items()]
        busy = "" if entry["utilization"] is None else f"; this plan keeps it {entry['utilization']:.0%} busy"
        out.append(f"{labels.get(entry['market'], entry['market'])}: {cost}" + "".join(f"; {b}" for b in beats)
                   + busy)
    return out


def _rows(breakdown: Breakdown):
    for f in breakdown.figures:
        yield visible(f.name), visible(f.item), visible(f.market), visible(f.label), f.value, f.low, f.high


def render_csv(breakdown: Breakdown, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for name, item, market, label, value, low, high in _rows(breakdown):
        writer.writerow([*map(csv_text, (name, item, market, label)), repr(value),
                         "" if low is None else repr(low), "" if high is None else repr(high)])
    for name, item, market, label, value in _physics(breakdown):
        writer.writerow([*map(csv_text, (name, item, market, label)), repr(value), "", ""])


def _physics(breakdown: Breakdown):
    """The physical figures after the money ones (`physics.physics_rows`), text made visible."""
    for name, item, market, label, value in physics_rows(breakdown.source):
        yield visible(name), item, visible(market), visible(label), value


def render_markdown(breakdown: Breakdown, out: TextIO) -> None:
    cell = lambda text: str(text).replace("\\", "\\\\").replace("|", "\\|")  # noqa: E731
    number = lambda v: "" if v is None else f"{v:,.2f}"  # noqa: E731
    out.write("| " + " | ".join(COLUMNS) + " |\n")
    out.write("|" + "---|" * 4 + "---:|" * 3 + "\n")
    for name, item, market, label, value, low, high in _rows(breakdown):
        out.write(f"| {name} | {item} | {market} | {cell(label)} | {number(value)} | {number(low)} "
                  f"| {number(high)} |\n")
    for name, item, market, label, value in _physics(breakdown):
        shown = f"{value:.4g}" if item in ("mfu", "flop_per_run") else number(value)
        out.write(f"| {name} | {item} | {market} | {cell(label)} | {shown} |  |  |\n")


def check_counts(report: CheckReport) -> str:
    """"28 figures agree with the reference model, 1 input changed": what an OK check compared."""
    changed = sum(1 for f in report.findings if f.kind == "input_changed")
    figures = len(report.figures)
    return (f"{figures:,} figure{'s' if figures != 1 else ''} agree{'s' if figures == 1 else ''} with the "
            f"reference model, {changed:,} input{'s' if changed != 1 else ''} changed")


def render_generated(written: Written, breakdown: Breakdown) -> None:
    """`generate`: "Wrote PATH: N sheets, M formula cells; master check TRUE", then the decision: the cheapest
    market and what it saves (one market: its total)."""
    check = {True: "TRUE (every check passes)", False: "FALSE: see the Checks sheet", None: "not computed"}
    print_line(f"Wrote {visible(written.path)}: {plural(len(written.sheets), 'sheet')}, "
         f"{plural(written.formula_cells, 'formula cell')}; master check {check[written.checks_ok]}")
    decided = decision_line(breakdown)
    if not decided:
        total = next(f for f in breakdown.figures if f.item == "total")
        decided = (f"One market: {market_labels(breakdown)[total.market]}, {money(total.value, breakdown.currency)} "
                   "total development cost")
    print_line(visible(decided))


def render_check(report: CheckReport, fmt: str = "table", out: TextIO | None = None, *,
                 verbose: bool = False) -> None:
    """`check`'s JSON, or its table: OK is one line with its counts (then the findings, if any: info and
    warnings); errors, or `verbose`, add every figure beside the reference."""
    from rich.table import Table
    from rich.text import Text

    if fmt == "json":
        write_report("check", report.as_json(), out, default=str, plan=report.plan, currency=report.currency)
        return
    console = guarded_console(out)
    status = Text("OK", style="bold green") if report.ok else Text("ERRORS FOUND", style="bold red")
    counts = Text(f" ({check_counts(report)})" if report.ok else "")
    console.print(Text(f"{visible(report.workbook)}: ") + status + counts, soft_wrap=True)  # one line, however long
    findings = report.sorted_findings()
    if findings:
        table = Table(title="Findings", title_justify="left")
        for column in ("Severity", "Kind", "Where", "Message"):
            table.add_column(column)
        styles = {"error": "red", "warning": "yellow", "info": "cyan"}
        for f in findings:
            table.add_row(Text(f.severity, style=styles[f.severity]), Text(visible(f.kind)), Text(visible(f.where)),
                          Text(visible(f.message)))
        console.print(table)
    if report.ok and not verbose:
        return
    figures = Table(title="Figures", title_justify="left")
    for column in ("Figure", "Workbook", "Reference", "Difference"):
        figures.add_column(column, justify="left" if column == "Figure" else "right")
    number = lambda v: "" if v is None else f"{v:,.2f}"  # noqa: E731
    for row in report.figures:
        figures.add_row(Text(visible(row["name"])), number(row["value"]), number(row["reference"]),
                        number(row.get("difference")))
    console.print(figures)
