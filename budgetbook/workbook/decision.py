"""The decision first on `Summary`: the cheapest market, its total, what it saves and its range, atop the sheet.

The rows a reader sees on opening (rows 5-12, in the market columns under the frozen headers, inside
columns A-F for up to four markets), one formula per row across the markets:

    Decision: the cheapest market (lowest total, green)
    Total development cost                     $246,365    $170,808
    Cheapest (the lowest total)                FALSE       TRUE
    Cheapest saves against this market         $75,557     -
    Cheapest saves against this market (%)     30.7%       0.0%
    P10 / P90 (computed), cheapest in (share)  ...         (where the plan has ranges)

"Saves" means one thing everywhere (`show`, here, Procurement): what choosing the cheapest market
saves against a market is that market's total less the cheapest's. A plan with one market has no
decision to make and no block. Every cell is a live formula of the arithmetic, comparisons, IF and
MIN that `xlsx.numeric` evaluates: edited inputs move the decision. Where the plan has ranges, three
more rows link the Summary's simulated P10 and P90 and the share of samples in which the market is
the cheapest (numbers budgetbook computes, `percentiles.py`), and the chart of the total by market
marks each market's P10 and P90.
"""

from __future__ import annotations

from ..lineitems.registry import TOTAL
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Sheet
from ..sheetkit.rows import FIRST_COL, HEADER_ROW, CalcSheet
from ..xlsx.cell_grid import col_letters

SECTION = "Decision: the cheapest market (its total green)"
SAVES = "Cheapest saves against this market"  # the one wording of a saving, `printing.decision_line` too
# where the plan has ranges: the simulated range and how often the market is the cheapest (Summary's
# percentile block, computed by budgetbook), so the decision says how sure it is
RANGE = (("P10 of the total (computed)", "sim_p10", None), ("P90 of the total (computed)", "sim_p90", None),
         ("Cheapest in (share of simulated samples)", "sim_cheapest", st.PERCENT))


def decision_rows(plan: Plan, ranged: bool) -> int:
    """The rows `build_decision` takes (the section, its rows, a gap): Summary keeps them free at its top."""
    return 0 if len(plan.markets) < 2 else 6 + (len(RANGE) if ranged else 0)


def build_decision(sheet: CalcSheet, plan: Plan, total_row: int, simulated: dict[str, int]) -> None:
    """The decision rows at the sheet's current row (the rows kept free atop Summary), reading the total
    in `total_row` and the simulated rows in `simulated` (key -> row) of the same columns."""
    if len(plan.markets) < 2:
        return
    money0 = st.money(plan.currency)
    sheet.section(SECTION)
    # "total", not "figure": figure is a label style, and check's audit reads labels by style
    totals = sheet.row(TOTAL.label, plan.currency, money0, "={total}", "dec_total", style="total", total=total_row)
    first, last = col_letters(FIRST_COL), col_letters(FIRST_COL + len(plan.markets) - 1)
    lowest = f"MIN(${first}${totals}:${last}${totals})"
    sheet.row("Cheapest (the lowest total)", "", "General", "={total}<=" + lowest, "dec_cheapest",
              style="check", total=totals)
    saving = sheet.row(SAVES, plan.currency, money0, "={total}-" + lowest, "dec_saving", total=totals)
    sheet.row(f"{SAVES} (%)", "%", st.PERCENT, "=IF({total}>k_none,{saving}/{total},k_none)", "dec_saving_share",
              total=totals, saving=saving)
    for label, source, fmt in RANGE if simulated else ():
        sheet.row(label, "%" if fmt else plan.currency, fmt or money0, "={value}", f"dec_{source}",
                  value=simulated[source.removeprefix("sim_")])
    sheet.sheet.lowest_in_row.append(f"{first}{totals}:{last}{totals}")  # the cheapest total, green
    sheet.gap()


def market_chart(sheet: Sheet, plan: Plan, total_row: int, range_rows: tuple[tuple[int, str], ...] = (),
                 below: int = 0) -> dict:
    """The total by market as columns, under the line-item chart (at row `below`) so the printed page stays
    as wide as the figures, or beside it (20 cm wide from column C) where `below` is 0;
    `range_rows` (row, title), the simulated P10 and P90 rows, are marked on each column."""
    beside = not below
    widths = [sheet.widths.get(c, 8.43) for c in range(FIRST_COL, FIRST_COL + 40)]
    used, col = 0.0, FIRST_COL
    while used < LINE_CHART_CHARACTERS:  # the column where the line-item chart ends, plus one
        used += widths[col - FIRST_COL]
        col += 1
    return {"title": "Total development cost by market", "row": total_row, "labels_row": HEADER_ROW,
            "first_col": FIRST_COL, "last_col": FIRST_COL + len(plan.markets) - 1, "series": TOTAL.label,
            "currency": plan.currency, "axis_format": st.axis_money(plan.currency),
            "anchor": f"{col_letters(col + 1)}{sheet.row}" if beside else f"C{below}", "height": 9.0,
            "width": max(14.0, 5.0 * len(plan.markets) + 4), "markers": list(range_rows)}


LINE_CHART_CHARACTERS = 20 / 0.19  # 20 cm of chart in characters of Calibri 11 (a column unit is ~0.19 cm)
