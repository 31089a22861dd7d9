"""`Summary`: every figure per market, the three magnitudes kept apart, and a chart of the line items."""

from __future__ import annotations

import math

from ..lineitems import final_run, gap, stages
from ..lineitems.registry import TOTAL, beside_lines, development_lines
from ..markets import owned_book
from ..plan.model import Plan
from ..ranges.ranged import ranged_inputs
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.market_labels import series_title
from ..sheetkit.rows import FIRST_COL, CalcSheet, CellOf, NameOf, Rows
from ..sheetkit.scenario import NAME as SCENARIO
from .decision import build_decision, decision_rows, market_chart
from .percentiles import add_percentiles

ROW_HEIGHT_CM = 1.4  # the line-item chart's height per line item
ROW_CM = 0.53        # a default row (15 pt) in centimetres


def build_summary(book: Blueprint, plan: Plan) -> int:
    """Summary, but its links to the gap by category; returns the row they go in (`gap.summary_rows`)."""
    sheet = CalcSheet(book, plan, "Summary", "output", f"Summary: {plan.name}",
                      "Three magnitudes, never mixed: the compute of the final run, the total "
                      "development cost, and the serving cost paid afterwards.")
    sheet.sheet.gridlines = False
    sheet.sheet.runs_on = True  # printed one page wide, as tall as it takes: never squeezed below 8 pt
    money0 = st.money(plan.currency)
    top = sheet.sheet.row  # the answer first, in the rows and columns seen on opening: written last, here
    sheet.sheet.row += decision_rows(plan, bool(ranged_inputs(plan)))
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
        if f"{stages.PER_BUDGET}_{plan.markets[0].id}" in book.specs:  # seed 000's count, said outright
            sheet.row(f"Experiments per 10,000 {plan.currency}", "runs", st.COUNT, "={per}",
                      "sum_experiments_per_budget", per=NameOf(stages.PER_BUDGET))
        sheet.gap()
    gap_at = sheet.sheet.row  # why each other market costs more than the cheapest: linked once Procurement is built
    sheet.sheet.row += gap.summary_height(plan)
    owned_book.summary_rows(sheet, plan)  # own or rent: the break-even utilization, where the plan owns a cluster
    if f"{final_run.TOKENS}_{plan.markets[0].id}" in book.specs:
        _per_million_tokens(sheet, plan, total, final_row)
    add_scenario_row(sheet)  # ranges: the scenario the figures are in, and P10/P50/P90 computed by budgetbook
    simulated = add_percentiles(sheet, plan)
    after, sheet.sheet.row = sheet.sheet.row, top
    build_decision(sheet, plan, total, simulated)
    sheet.sheet.row = after
    sheet.sheet.put(sheet.sheet.row, 1, "All checks pass (see Checks)", "section")
    book.formula(sheet.sheet, sheet.sheet.row, FIRST_COL, "=checks_ok", "sum_checks_ok", kind="check", style="check")
    sheet.sheet.red_when_false.append(f"C{sheet.sheet.row}")
    sheet.sheet.row += 2
    # the charts sit right of the frozen label columns, so scrolling never cuts them
    sheet.sheet.chart = {"title": "Development cost by line item", "first_row": rows[0], "last_row": rows[-1],
                         "anchor": f"C{sheet.sheet.row}", "currency": plan.currency,
                         "axis_format": st.axis_money(plan.currency), "row_height": ROW_HEIGHT_CM,
                         "series": [(FIRST_COL + i, series_title(book, m)) for i, m in enumerate(plan.markets)]}
    ends = ((simulated["p10"], "P10"), (simulated["p90"], "P90")) if simulated else ()  # the range, where known
    height = max(7.0, ROW_HEIGHT_CM * len(rows) + 3)  # the line-item chart's, as openpyxl_book sizes it
    below = sheet.sheet.row + math.ceil(height / ROW_CM) + 2
    # printed, the figures fill a page and each chart has a page of its own, never cut across two
    sheet.sheet.page_breaks += [sheet.sheet.row - 1, below - 1]
    sheet.sheet.more_charts.append(market_chart(sheet.sheet, plan, total, ends, below))
    return gap_at


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
