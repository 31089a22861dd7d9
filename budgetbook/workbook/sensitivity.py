"""`Sensitivity`: each ranged input alone at its low and its high, ranked by swing, and a tornado chart.

The totals with one input moved are the reference model's (`ranges/sensitivity.py`), computed by
budgetbook and labelled so: a live formula cannot re-run the whole model with one input moved. What
can be live is: the swing and the two bars of the tornado (each total less the base total). The market
is the cheapest in the base case (the one a reader is deciding on); `budgetbook sensitivity --market M`
gives any other.
"""

from __future__ import annotations

import math
from typing import Any

from ..heap import give_back_freed_memory
from ..plan.inputs import input_cells
from ..plan.model import Plan
from ..ranges.ranged import ranged_inputs
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.input_labels import number_format
from .chart_categories import text_categories
from .computed import Computed, Lazy
from .human_labels import input_title, market_title
from .memo import PlanMemo

TITLE = "Sensitivity"
MARKET_ROW, BASE_ROW, CHART_ROW = 4, 5, 7
ROW_CM = 0.53     # a default row (15 pt) in centimetres, to leave the chart its rows
COLUMNS = ("Rank", "Input", "Plan key", "Low", "High", "Total at low", "Total at high", "Swing",
           "Low - base", "High - base")
LOW_TOTAL, HIGH_TOTAL, SWING, DELTA_LOW, DELTA_HIGH = 6, 7, 8, 9, 10
CHART_ROWS = 15   # the tornado shows the inputs that move the total most
SWING_FORMULA = "=ABS({high}-{low})"
DELTA_FORMULA = "={total}-{base}"


def _sensitivity(plan: Plan) -> Any:
    from ..ranges.sensitivity import sensitivity  # on first use, not at import: loads numpy, openpyxl

    return sensitivity(plan)


# The plan's sensitivity, computed once per plan (`memo.PlanMemo`): `generate` lays the plan out when it
# loads it and builds it again to write it, `extract` and `diff` load two plans of one content, and each
# build ranks the inputs by it (the reference model twice per ranged input: a third of a portfolio's build).
_result: PlanMemo[Any] = PlanMemo(_sensitivity)


def rank_first(plan: Plan) -> None:
    """Rank the inputs now, while little is held, where the plan has ranges (`generate` and `check`, before
    laying it out, as `percentiles.simulate_first`): the engine's arrays, a column per end of every ranged
    input, were ~50 MB of the largest plan's `check`, made while it held the book and its layout. A plan the
    ranking fails on is left to fail as it did, when the sheet is written."""
    if ranged_inputs(plan) and _result.ahead(plan):
        give_back_freed_memory()  # the arrays, each under glibc's mmap threshold, are freed into the C heap


def build_sensitivity(book: Blueprint, plan: Plan) -> None:
    count = len(ranged_inputs(plan))
    if not count:
        return  # nothing ranged: nothing to be sensitive to
    result = Lazy.of(_result, plan)
    cells = {cell.key_path: cell for cell in input_cells(plan)}
    # each row's input as its Inputs row reads, its ends in its own format (45.0%, $2.50): by the ranking,
    # worked out when read (writing, `check`), never by a layout that only refuses bad names (`show PLAN`)
    def titled(k: int) -> Computed:
        return Computed(result, lambda r: input_title(plan, cells[r.inputs[k].input]))

    def fmt(k: int) -> Computed:
        return Computed(result, lambda r: number_format(cells[r.inputs[k].input], plan.currency))

    titles, formats = [titled(k) for k in range(count)], [fmt(k) for k in range(count)]
    sheet = book.sheet(TITLE, "output")
    sheet.gridlines = False
    sheet.put(1, 1, f"Sensitivity: {plan.name}", "title", text=True)
    sheet.put(2, 1, "Each ranged input alone at its low and at its high, every other input at its value (base): "
                    "the totals are computed by budgetbook (the reference model, `budgetbook sensitivity`); the "
                    "swing and the bars are live. Not moved by the scenario switch.", "subtitle")
    money0 = st.money(plan.currency)
    sheet.put(MARKET_ROW, 1, "Market (the cheapest in the base case)", "label")
    sheet.put(MARKET_ROW, 3, Computed(result, lambda r: market_title(plan, r.market)), "unit", text=True)
    sheet.put(BASE_ROW, 1, "Total development cost, base case (computed by budgetbook)", "label")
    sheet.put(BASE_ROW, 3, Computed(result, lambda r: r.base), "constant", money0)
    book.name("sens_base", sheet, BASE_ROW, 3, "constant")
    shown = min(count, CHART_ROWS)
    height = max(7.0, 0.9 * shown + 3)
    header_row = CHART_ROW + math.ceil(height / ROW_CM) + 1  # the tornado first, the table under it
    for col, title in enumerate(COLUMNS, 1):
        sheet.put(header_row, col, title, "header")
    for k in range(count):
        row = header_row + 1 + k
        pick = lambda attr, k=k: (lambda r: getattr(r.inputs[k], attr))  # noqa: E731
        sheet.put(row, 1, f"#{k + 1}", "label")
        # the input as its Inputs row reads (owner: title), its ends in its own format (a share 45.0%)
        sheet.put(row, 2, titles[k], "label", text=True)
        sheet.put(row, 3, Computed(result, pick("input")), "unit", text=True)
        for col, end in ((4, "low"), (5, "high")):
            sheet.put(row, col, Computed(result, pick(end)), "constant", formats[k])
        for col, attr, name in ((LOW_TOTAL, "low_total", "low"), (HIGH_TOTAL, "high_total", "high")):
            sheet.put(row, col, Computed(result, pick(attr)), "constant", money0)
            book.name(f"sens_{name}_{k + 1}", sheet, row, col, "constant")
        low, high = sheet.ref(row, LOW_TOTAL, TITLE), sheet.ref(row, HIGH_TOTAL, TITLE)
        book.formula(sheet, row, SWING, SWING_FORMULA.format(low=low, high=high), f"sens_swing_{k + 1}", fmt=money0)
        book.formula(sheet, row, DELTA_LOW, DELTA_FORMULA.format(total=low, base="sens_base"),
                     f"sens_dlow_{k + 1}", fmt=money0)
        book.formula(sheet, row, DELTA_HIGH, DELTA_FORMULA.format(total=high, base="sens_base"),
                     f"sens_dhigh_{k + 1}", fmt=money0)
    last = header_row + shown
    sheet.chart = {"height": height, "kind": "tornado",
                   "title": "What moves the total most (each input alone, vs the base case)",
                   "first_row": header_row + 1, "last_row": last, "labels_col": 2,
                   "series": [(DELTA_LOW, "Input at its low"), (DELTA_HIGH, "Input at its high")],
                   "anchor": f"A{CHART_ROW}", "currency": plan.currency}
    sheet.widths = {1: 8, 2: 52, 3: 30, 4: 14, 5: 14, 6: 16, 7: 16, 8: 14, 9: 14, 10: 14}  # $10,000,000 fits
    sheet.freeze = f"A{header_row + 1}"
    sheet.row = header_row + 1 + count


def tornado_chart(ws: Any, spec: dict) -> None:
    """A horizontal bar chart of the two deltas per input, overlapping: the tornado."""
    from openpyxl.chart import BarChart, Reference, Series

    chart = BarChart()
    chart.type, chart.grouping, chart.overlap, chart.gapWidth = "bar", "clustered", 100, 40
    chart.title = spec["title"]
    chart.y_axis.title = spec["currency"]
    chart.y_axis.numFmt = st.signed_axis_money(spec["currency"])  # the swing in currency, both sides of zero
    chart.y_axis.majorGridlines = None
    chart.y_axis.delete = False
    chart.x_axis.delete = False
    chart.x_axis.scaling.orientation = "maxMin"  # the largest swing on top, as in the table
    chart.x_axis.tickLblPos = "low"               # labels at the left edge, clear of the bars
    for col, title in spec["series"]:
        values = Reference(ws, min_col=col, min_row=spec["first_row"], max_row=spec["last_row"])
        chart.series.append(Series(values, title=title))
    text_categories(chart, Reference(ws, min_col=spec["labels_col"], min_row=spec["first_row"],
                                   max_row=spec["last_row"]))
    chart.height = spec["height"]
    chart.width = 26
    ws.add_chart(chart, spec["anchor"])
