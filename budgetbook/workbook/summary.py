"""`Summary`: every figure per market, the three magnitudes kept apart, and a chart of the line items."""

from __future__ import annotations

from ..lineitems import final_run
from ..lineitems.registry import TOTAL, beside_lines, development_lines
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.market_labels import series_title
from ..sheetkit.rows import FIRST_COL, CalcSheet, CellOf, NameOf, Rows
from ..sheetkit.scenario import NAME as SCENARIO
from .decision import build_decision, market_chart
from .percentiles import add_percentiles


def build_summary(book: Blueprint, plan: Plan) -> None:
    sheet = CalcSheet(book, plan, "Summary", "output", f"Summary: {plan.name}",
                      "Three magnitudes, never mixed: the compute of the final run, the total "
                      "development cost, and the serving cost paid afterwards.")
    sheet.sheet.gridlines = False
    money0 = st.money(plan.currency)
    sheet.section("Total development cost")
    rows = [sheet.row(line.label, plan.currency, money0, "={line}", f"sum_{line.id}", item=line.id,
                      line=NameOf(line.id)) for line in development_lines(plan)]
    total = sheet.row(TOTAL.label, plan.currency, money0, "=SUM({parts})", TOTAL.id, kind="figure", item=TOTAL.id,
                      parts=Rows(tuple(rows)))
    sheet.gap()
    beside = beside_lines(plan)
    final_row = None
    if beside:
        sheet.section("Beside the total, never added into it")
        for line in beside:
            row = sheet.row(line.label, plan.currency, money0, "={line}", f"sum_{line.id}", item=line.id,
                            line=NameOf(line.id))
            final_row = row if line.id == final_run.LINE.id else final_row
        sheet.gap()
    if f"{final_run.TOKENS}_{plan.markets[0].id}" in book.specs:
        _per_million_tokens(sheet, plan, total, final_row)
    build_decision(book, sheet.sheet, plan, total)
    add_scenario_row(sheet)  # ranges: the scenario the figures are in, and P10/P50/P90 computed by budgetbook
    simulated = add_percentiles(sheet, plan)
    sheet.sheet.put(sheet.sheet.row, 1, "All checks pass (see Checks)", "section")
    book.formula(sheet.sheet, sheet.sheet.row, FIRST_COL, "=checks_ok", "sum_checks_ok", kind="check", style="check")
    sheet.sheet.red_when_false.append(f"C{sheet.sheet.row}")
    sheet.sheet.row += 2
    # the charts sit right of the frozen label columns, so scrolling never cuts them
    sheet.sheet.chart = {"title": "Development cost by line item", "first_row": rows[0], "last_row": rows[-1],
                         "anchor": f"C{sheet.sheet.row}", "currency": plan.currency,
                         "axis_format": st.axis_money(plan.currency), "row_height": 1.4,
                         "series": [(FIRST_COL + i, series_title(book, m)) for i, m in enumerate(plan.markets)]}
    ends = ((simulated["p10"], "P10"), (simulated["p90"], "P90")) if simulated else ()  # the range, where known
    sheet.sheet.more_charts.append(market_chart(sheet.sheet, plan, total, ends))


def _per_million_tokens(sheet: CalcSheet, plan: Plan, total: int, final_row: int | None) -> None:
    sheet.section("Per million training tokens (of the final run)")
    money2 = st.money(plan.currency, 2)
    tokens = CellOf(final_run.TOKENS)
    sheet.row("Total development cost per million tokens", plan.currency, money2,
              "={total}/({tokens}/k_tokens_per_million)", "sum_total_per_mtok", total=total, tokens=tokens)
    if final_row is not None:
        sheet.row("Final-run compute per million tokens", plan.currency, money2,
                  "={final}/({tokens}/k_tokens_per_million)", "sum_final_per_mtok", final=final_row, tokens=tokens)
    sheet.gap()


def add_scenario_row(sheet: CalcSheet) -> None:
    """On Summary: which scenario the figures above are in (a printed page must say so)."""
    row = sheet.sheet.row
    sheet.sheet.put(row, 1, "Scenario of the figures above (the switch is on Inputs)", "section")
    sheet.book.formula(sheet.sheet, row, FIRST_COL, f"={SCENARIO}", "sum_scenario")
    sheet.sheet.row += 2
