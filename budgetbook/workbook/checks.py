"""`Checks`: the workbook checks itself; `checks_ok` is TRUE when every check passes, red when not."""

from __future__ import annotations

from ..ledger.invoices import actuals_checks
from ..ledger.model import Actuals
from ..ledger.sheets import variance_checks
from ..lineitems import gap
from ..lineitems.registry import TOTAL, development_lines, lines
from ..plan.model import Plan
from ..sheetkit.grid import Blueprint, Sheet
from ..sheetkit.names import Inputs
from .human_labels import bounds_text, input_title, market_title

MASTER_CHECK = "checks_ok"  # the name of the cell that is TRUE when every check passes

RESULT_COL = 4
FIRST_ROW = 6


def build_checks(book: Blueprint, plan: Plan, inp: Inputs, actuals: Actuals | None = None) -> Sheet:
    sheet = book.sheet("Checks", "output")
    sheet.put(1, 1, "Checks", "title")
    sheet.put(2, 1, "Every row must be TRUE. Where one is FALSE the workbook disagrees with itself, "
                    "or an input is outside what the model allows.", "subtitle")
    for col, title in enumerate(("Area", "Check", "Market / plan key", "OK"), 1):
        sheet.put(FIRST_ROW - 1, col, title, "header")
    sheet.print_title_rows = f"{FIRST_ROW - 1}:{FIRST_ROW - 1}"  # the header atop every printed page
    sheet.runs_on = True  # a check per row, as many pages as it takes
    sheet.row = FIRST_ROW

    def check(area: str, text: str, what: str, formula: str, name: str, market: str = "") -> None:
        sheet.put(sheet.row, 1, area, "label", text=True)
        sheet.put(sheet.row, 2, text, "label", text=True)
        sheet.put(sheet.row, 3, what, "unit", text=True)
        book.formula(sheet, sheet.row, RESULT_COL, formula, name, kind="check", style="check", market=market)
        sheet.red_when_false.append(f"D{sheet.row}")
        sheet.row += 1

    items = [line.id for line in development_lines(plan)]
    for m in plan.markets:
        total = f"{TOTAL.id}_{m.id}"
        parts = "+".join(f"{i}_{m.id}" for i in items)
        check("Totals", "Line items add up to the total", market_title(plan, m.id),
              f"=ABS({total}-({parts}))<=k_tolerance*ABS({total})", f"chk_total_{m.id}", m.id)
        check("Totals", "Procurement total equals the total", market_title(plan, m.id),
              f"=ABS({book.ref(f'prc_total_{m.id}', sheet)}-{total})<=k_tolerance*ABS({total})",
              f"chk_procurement_{m.id}", m.id)
        if len(plan.markets) > 1:
            gaps = "+".join(f"{line.id}_{m.id}" for line in gap.LINES)
            check("Totals", "The gap by category adds up to what the cheapest saves", market_title(plan, m.id),
                  f"=ABS({book.ref(f'prc_diff_{m.id}', sheet)}-({gaps}))<=k_tolerance*ABS({total})",
                  f"chk_gap_{m.id}", m.id)
    for line in development_lines(plan) + [TOTAL]:
        for m in plan.markets:
            months = book.ref(f"cf_{line.id}_{m.id}", sheet)
            figure = f"{line.id}_{m.id}"
            check("Cash flow", f"{line.label}: the months add up to the figure", market_title(plan, m.id),
                  f"=ABS({months}-{figure})<=k_tolerance*ABS({figure})", f"chk_cf_{line.id}_{m.id}", m.id)
    for line in lines(plan):
        for m in plan.markets:
            check("Summary", f"Summary {line.label} equals its line-item sheet", market_title(plan, m.id),
                  f"={book.ref(f'sum_{line.id}_{m.id}', sheet)}={line.id}_{m.id}", f"chk_sum_{line.id}_{m.id}", m.id)
    for cell in inp.cells:
        x = cell.name
        above = ">" if cell.bounds.min_exclusive else ">="
        check("Inputs", f"{input_title(plan, cell)}: {bounds_text(cell)}", cell.key_path,
              f"=AND(ISNUMBER({x}),{x}{above}{x}_min,{x}<={x}_max)", f"chk_in_{x}")
        if cell.num.ranged:
            check("Inputs", f"{input_title(plan, cell)}: low <= value <= high, inside the same bounds", cell.key_path,
                  f"=AND(ISNUMBER({x}_low),ISNUMBER({x}_high),{x}_low<={x},{x}<={x}_high,"
                  f"{x}_low{above}{x}_min,{x}_high<={x}_max)", f"chk_range_{x}")
    if actuals is not None:  # the Variance sheet, where bills were imported
        for text, market, formula, name in variance_checks(plan, actuals):
            check("Variance", text, market_title(plan, market), formula, name, market)
        for text, market, formula, name in actuals_checks(actuals):
            check("Actuals", text, market_title(plan, market), formula, name, market)
    last = sheet.row - 1
    sheet.put(3, 1, "All checks pass", "section")
    book.formula(sheet, 3, RESULT_COL, f"=AND(D{FIRST_ROW}:D{last})", MASTER_CHECK, kind="check", style="check")
    sheet.red_when_false.insert(0, "D3")
    sheet.widths = {1: 12, 2: 70, 3: 40, 4: 10}
    sheet.freeze = f"A{FIRST_ROW}"
    return sheet
