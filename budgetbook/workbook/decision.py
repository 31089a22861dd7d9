"""The decision up front on `Summary`: the cheapest market, and what it saves against each other one.

A block beside the figures, in the rows a reader sees on opening (right of the market columns, so
no figure moves), and a chart of the total by market beside the line-item chart:

    Decision               Total dev. cost   Cheapest saves   Cheapest saves (%)   Cheapest
    Cheapest total         $170,808
    <market A>             $246,365          $75,557          30.7%                FALSE
    <market B>             $170,808          $0               0.0%                 TRUE     (green)

Every cell is a live formula of the arithmetic, comparisons, IF and MIN that `xlsx.numeric`
evaluates without the `formulas` function table (which MATCH or INDEX would import): the
cheapest market is the row whose `Cheapest` is TRUE, its total highlighted; edited inputs move
the decision. Where the plan has ranges, three more columns link the Summary's simulated P10 and
P90 and the share of samples in which the market is the cheapest (numbers budgetbook computes,
`percentiles.py`), and the chart of the total by market marks each market's P10 and P90.
"""

from __future__ import annotations

from ..lineitems.registry import TOTAL
from ..plan.model import Plan
from ..ranges.ranged import ranged_inputs
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint, Sheet
from ..sheetkit.market_labels import label_name, write_header
from ..sheetkit.rows import FIRST_COL, HEADER_ROW, market_header
from ..xlsx.cell_grid import col_letters

HEADERS = ("Decision", "Total development cost", "Cheapest saves", "Cheapest saves (%)", "Cheapest")
WIDTHS = (28.0, 20.0, 18.0, 18.0, 11.0)
# where the plan has ranges: the simulated range and how often the market is the cheapest (Summary's
# percentile block, computed by budgetbook), so the decision says how sure it is
RANGE_HEADERS = ("P10 (computed)", "P90 (computed)", "Cheapest in (share of samples)")
RANGE_WIDTHS = (16.0, 16.0, 16.0)
RANGE = (("sim_p10", None), ("sim_p90", None), ("sim_cheapest", st.PERCENT))


def first_column(plan: Plan) -> int:
    """The block's first column: one empty column right of the last market's."""
    return FIRST_COL + len(plan.markets) + 1


def build_decision(book: Blueprint, sheet: Sheet, plan: Plan, total_row: int) -> int:
    """Write the block on `sheet` (Summary, whose row `total_row` holds each market's total); returns
    the last row it uses."""
    col = first_column(plan)
    money0 = st.money(plan.currency)
    ranged = bool(ranged_inputs(plan))
    headers, widths = (HEADERS + RANGE_HEADERS, WIDTHS + RANGE_WIDTHS) if ranged else (HEADERS, WIDTHS)
    for offset, (title, width) in enumerate(zip(headers, widths, strict=True)):
        sheet.put(HEADER_ROW, col + offset, title, "header")
        sheet.widths[col + offset] = width
    first, last = col_letters(FIRST_COL), col_letters(FIRST_COL + len(plan.markets) - 1)
    row = HEADER_ROW + 2
    sheet.put(row, col, "Cheapest total", "section")
    # "total", not "figure": figure is a label style, and check's audit reads labels by style
    book.formula(sheet, row, col + 1, f"=MIN(${first}${total_row}:${last}${total_row})", "dec_cheapest_total",
                 fmt=money0, style="total")
    cheapest = f"${col_letters(col + 1)}${row}"
    row += 1
    top = row
    for market in plan.markets:
        total = f"{TOTAL.id}_{market.id}"
        # a live label is a formula: not in `label` style, which check's structure audit reads as row labels
        live = "text" if label_name(market) in book.specs else "label"
        write_header(book, sheet, row, col, market, market_header(market), live, name=f"dec_label_{market.id}")
        book.formula(sheet, row, col + 1, f"={total}", f"dec_total_{market.id}", fmt=money0, market=market.id)
        saving = f"{col_letters(col + 2)}{row}"
        book.formula(sheet, row, col + 2, f"={total}-{cheapest}", f"dec_saving_{market.id}", fmt=money0,
                     market=market.id)
        book.formula(sheet, row, col + 3, f"=IF({total}>k_none,{saving}/{total},k_none)",
                     f"dec_saving_share_{market.id}", fmt=st.PERCENT, market=market.id)
        book.formula(sheet, row, col + 4, f"={total}<={cheapest}", f"dec_cheapest_{market.id}", style="check",
                     market=market.id)
        for offset, (source, fmt) in enumerate(RANGE if ranged else (), len(HEADERS)):
            book.formula(sheet, row, col + offset, f"={source}_{market.id}", f"dec_{source}_{market.id}",
                         fmt=fmt or money0, market=market.id)
        row += 1
    totals = col_letters(col + 1)
    sheet.lowest_in_row.append(f"{totals}{top}:{totals}{row - 1}")  # the cheapest total, green
    return row


def market_chart(sheet: Sheet, plan: Plan, total_row: int, range_rows: tuple[tuple[int, str], ...] = ()) -> dict:
    """The total by market as columns, beside the line-item chart (which is 20 cm wide from column C);
    `range_rows` (row, title), the simulated P10 and P90 rows, are marked on each column."""
    widths = [sheet.widths.get(c, 8.43) for c in range(FIRST_COL, FIRST_COL + 40)]
    used, col = 0.0, FIRST_COL
    while used < LINE_CHART_CHARACTERS:  # the column where the line-item chart ends, plus one
        used += widths[col - FIRST_COL]
        col += 1
    return {"title": "Total development cost by market", "row": total_row, "labels_row": HEADER_ROW,
            "first_col": FIRST_COL, "last_col": FIRST_COL + len(plan.markets) - 1, "series": TOTAL.label,
            "currency": plan.currency, "axis_format": st.axis_money(plan.currency),
            "anchor": f"{col_letters(col + 1)}{sheet.row}", "height": 9.0,
            "width": max(10.0, 3.0 * len(plan.markets) + 4), "markers": list(range_rows)}


LINE_CHART_CHARACTERS = 20 / 0.19  # 20 cm of chart in characters of Calibri 11 (a column unit is ~0.19 cm)
