"""`budgetbook report`: one self-contained HTML page a reviewer opens from a CI artefact or an e-mail.

In this order: the decision (the cheapest market and what it saves, as `show` and Summary say it), the
totals by market and line item, the cash flow, the tornado and the simulated distributions (where the
plan has ranges) and, for a workbook, its check findings and its variance (with bills). The charts are
`output.charts`' SVG, the page `output.html`'s: nothing fetched, no script, every text escaped, printable
on A4 and Letter. Money is printed as `show` prints it, markets by label.
"""

from __future__ import annotations

from .. import __version__
from ..lineitems.registry import beside_total_ids
from ..review.report import Report
from .html import esc, figure, page, table
from .plots import plotting
from .show import BESIDE_NOTES, check_counts, decision_line, money, ownership_lines


def report_page(report: Report) -> str:
    charts = plotting()
    breakdown, cur, labels = report.breakdown, report.breakdown.currency, report.labels
    title = f"{breakdown.plan}: budget report"
    body = [f"<h1>{esc(title)}</h1>",
            f'<p class="meta">{esc(report.source)} ({esc(report.kind)}), {esc(cur)}; budgetbook {esc(__version__)}'
            "</p>"]
    decision = decision_line(breakdown) or _one_market(report)
    body += ["<h2>Decision</h2>", f'<p class="decision">{esc(decision)}</p>']
    body += [f"<p>{esc(line)}</p>" for line in ownership_lines(breakdown)]
    body += ["<h2>Totals by market and line item</h2>", _totals(report)]
    body += ["<h2>Cash flow</h2>", figure(charts.cash_flow(report.months, labels), "Cumulative cash flow by market",
                                          "The cash view: an owned cluster's purchase in the month it is paid.")]
    if report.sensitivity is not None:
        s = report.sensitivity
        body += ["<h2>Sensitivity</h2>", figure(charts.tornado(s), f"Tornado of {s.market_label or s.market}", (
            f"{s.market_label or s.market} (the cheapest in the base case, {money(s.base, cur)}): each ranged input "
            "alone at its low and at its high, the 15 that move the total most."))]
    if report.simulation is not None:
        sim = report.simulation
        body += ["<h2>Simulated distributions</h2>", figure(charts.distributions(sim), "Simulated totals by market"),
                 table(["Market", "P10", "P50", "P90", "Mean", "Cheapest in"],
                       [[sim.labels.get(m, m), *(money(v, cur) for v in (s.p10, s.p50, s.p90, s.mean)),
                         f"{s.cheapest:.1%}"] for m, s in sim.markets.items()], numeric=(1, 2, 3, 4, 5))]
    if report.check is not None:
        body += ["<h2>Check</h2>", _check(report)]
    if report.variance is not None:
        v = report.variance
        billed = v.months[v.billed - 1] if v.billed else "none"
        body += ["<h2>Variance</h2>", f"<p>Plan vs bills, months billed {esc(v.months[0])} to {esc(billed)} of "
                 f"{esc(v.months[-1])}.</p>", figure(charts.variance(v), "Plan against actual by month"),
                 table(["Market", "Line item", "Plan to date", "Actual", "Variance", "Variance %", "Forecast"],
                       [[v.label(line.market), line.label, money(t["plan_to_date"], cur),
                         *([money(t["actual"], cur), money(t["variance"], cur), f"{t['variance_pct'] * 100:,.1f} %",
                            money(t["forecast"], cur)] if not line.plan_only else ["", "", "", "plan only"])]
                        for line in v.lines for t in [line.totals()]], numeric=(2, 3, 4, 5, 6),
                       totals=[n for n, line in enumerate(v.lines) if line.item == "total"])]
    return page(title, body)


def _one_market(report: Report) -> str:
    total = next(f for f in report.breakdown.figures if f.item == "total")
    return (f"One market: {report.labels.get(total.market, total.market)}, "
            f"{money(total.value, report.breakdown.currency)} total development cost")


def _totals(report: Report) -> str:
    breakdown, cur, labels = report.breakdown, report.breakdown.currency, report.labels
    by = {(f.item, f.market): f for f in breakdown.figures}
    items = list(dict.fromkeys(f.item for f in breakdown.figures))
    beside = beside_total_ids()
    rows: list[list[str]] = []
    bold: list[int] = []
    for item in [i for i in items if i not in beside] + [i for i in items if i in beside]:
        figures = [by.get((item, market)) for market in breakdown.markets]
        label = next(f.label for f in figures if f is not None)
        if item in beside:
            label += BESIDE_NOTES.get(item, " (beside the total, not added to it)")
        if item == "total":
            bold.append(len(rows))
        rows.append([label, *("" if f is None else money(f.value, cur) for f in figures)])
    return table(["Line item", *(labels.get(m, m) for m in breakdown.markets)], rows,
                 numeric=range(1, 1 + len(breakdown.markets)), totals=bold)


def _check(report: Report) -> str:
    check = report.check
    assert check is not None
    status = (f'<p><span class="ok">OK</span>: {esc(check_counts(check))}</p>' if check.ok
              else '<p><span class="bad">ERRORS FOUND</span></p>')
    findings = check.sorted_findings()
    if not findings:
        return status + "<p>No findings.</p>"
    return status + table(["Severity", "Kind", "Where", "Message"],
                          [[f.severity, f.kind, f.where, f.message] for f in findings])

