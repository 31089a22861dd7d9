"""`Cash flow`: months across, each development line per market down, cumulative spend and its chart.

The sheet's grid and rows are the kit's (`sheetkit.cash_flow.CashFlow`); here the timing flags of
every window come first, then each line item's rows in registry order, the total and the
cumulative spend per market, and the chart.
"""

from __future__ import annotations

from ..lineitems.phasing import month_count
from ..lineitems.registry import LINE_ITEMS, TOTAL, development_lines
from ..plan.model import Plan
from ..sheetkit.cash_flow import HEADER_ROW, MONTHS, START, CashFlow, Flag
from ..sheetkit.grid import Blueprint
from ..sheetkit.market_labels import series_title
from ..sheetkit.names import Inputs


def _timing_flags(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    """Every window, before the money rows that read them."""
    cf.section("Timing flags: the share of each window that falls in the month")
    cf.flag("first", "The plan's first month (set-up: market tooling, further items)", "=k_none", "=k_setup_months")
    for i, w in enumerate(plan.workloads):
        key = ("workloads", i)
        months = (f"={inp[key + ('months',)]}" if key + ("months",) in inp.by_path
                  else f"={inp[key + ('cluster', 'days')]}/k_days_per_month")
        run = cf.flag(f"run_{w.id}", f"Workload runs: {w.label or w.id}", f"={inp[key + ('start',)]}", months)
        if w.checkpoints is not None:
            start, length = cf._cell(run.row, START), cf._cell(run.row, MONTHS)
            cf.flag(f"kept_{w.id}", f"Checkpoints stored: {w.label or w.id}", f"={start}+{length}",
                    f"={inp[key + ('checkpoints', 'retention_months')]}")
    for i, role in enumerate(plan.people.roles):  # type: ignore[attr-defined]
        at = ("people", "roles", i)
        cf.flag(f"role{i + 1}", f"Role paid: {role.role}", f"={inp[at + ('start',)]}", f"={inp[at + ('months',)]}")
    for item in LINE_ITEMS:
        if item.timing is not None:
            item.timing(cf, plan, inp)
    cf.gap()


def build_cash_flow(book: Blueprint, plan: Plan, inp: Inputs) -> CashFlow:
    cf = CashFlow(book, plan, inp, month_count(plan))
    _timing_flags(cf, plan, inp)
    for item in LINE_ITEMS:
        if item.cash_flow is not None:
            item.cash_flow(cf, plan, inp)
    cf.section("Total development cost")
    totals, cumulative = [], []
    for m in plan.markets:
        parts = [cf.line_rows[(line.id, m.id)] for line in development_lines(plan)]
        refs: dict[str, str | int | Flag] = {f"p{i}": r for i, r in enumerate(parts)}
        template = "=" + "+".join(f"{{{key}}}" for key in refs)
        totals.append(cf.row(f"{TOTAL.label}: {m.label or m.id}", template, f"cf_{TOTAL.id}_{m.id}", m, refs,
                             item=TOTAL.id, kind="figure"))
        cf.line_rows[(TOTAL.id, m.id)] = totals[-1]
    cf.gap()
    cf.section("Cumulative spend")
    for m, total in zip(plan.markets, totals, strict=True):
        first = cf._cell(total, cf.col(0), absolute_col=True)
        cumulative.append(cf.row(f"Cumulative: {m.label or m.id}", "=SUM(" + first + ":{this})", f"cf_cum_{m.id}", m,
                                 {"this": total}, total=False))
    cf.sheet.chart = {"kind": "line", "title": "Cumulative development spend by market", "rows": cumulative,
                      "labels_row": HEADER_ROW, "first_col": cf.col(0), "last_col": cf.col(cf.months - 1),
                      "anchor": f"A{cf.sheet.row + 1}", "currency": plan.currency,
                      "series": [series_title(book, m) for m in plan.markets]}
    return cf
