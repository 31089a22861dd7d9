"""`Procurement`: the same work bought on each market, side by side against the first one."""

from __future__ import annotations

from openpyxl.utils import get_column_letter

from ..plan.model import Plan
from . import style as st
from .rows import FIRST_COL, at, formula_row, section, start_calc_sheet, sum_of
from .grid import Book, Sheet
from .summary import beside_items, line_items


def build_procurement(book: Book, plan: Plan) -> Sheet:
    sheet = start_calc_sheet(book, plan, "Procurement", "output", "Procurement: markets side by side",
                             "Each column buys the same plan on one market (a hybrid splits workloads "
                             "across markets). The cheapest total is highlighted.")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    first = get_column_letter(FIRST_COL)
    last = get_column_letter(FIRST_COL + len(plan.markets) - 1)
    section(sheet, "Compute bought")
    alloc = formula_row(book, sheet, plan, "Allocated GPU-hours", "GPU-hours", st.HOURS,
                        lambda m, c: "=" + book.ref(f"cmp_alloc_{m.id}", sheet), lambda m: f"prc_alloc_{m.id}")
    formula_row(book, sheet, plan, "Average price per GPU-hour (compute / allocated hours)",
                f"{plan.currency}/GPU-hour", money2,
                lambda m, c: f"=IF({at(sheet, alloc, c)}=k_none,k_none,compute_{m.id}/{at(sheet, alloc, c)})",
                lambda m: f"prc_avg_price_{m.id}")
    sheet.row += 1
    section(sheet, "Development cost")
    rows = [formula_row(book, sheet, plan, label, plan.currency, money0,
                        lambda m, c, item=item: f"={item}_{m.id}", lambda m, item=item: f"prc_{item}_{m.id}")
            for item, label in line_items(plan)]
    total = formula_row(book, sheet, plan, "Total development cost", plan.currency, money0,
                        lambda m, c: "=" + sum_of([at(sheet, r, c) for r in rows]),
                        lambda m: f"prc_total_{m.id}", style="total")
    anchor = f"${first}${total}"
    diff = formula_row(book, sheet, plan, f"Difference vs {plan.markets[0].label or plan.markets[0].id}",
                       plan.currency, money0, lambda m, c: f"={at(sheet, total, c)}-{anchor}",
                       lambda m: f"prc_diff_{m.id}")
    formula_row(book, sheet, plan, f"Difference vs {plan.markets[0].label or plan.markets[0].id} (%)", "%",
                st.PERCENT, lambda m, c: f"=IF({anchor}=k_none,k_none,{at(sheet, diff, c)}/{anchor})",
                lambda m: f"prc_diff_pct_{m.id}")
    sheet.lowest_in_row.append(f"{first}{total}:{last}{total}")
    beside = beside_items(plan)
    if beside:
        sheet.row += 1
        section(sheet, "Beside the total, never added into it")
        for item, label in beside:
            formula_row(book, sheet, plan, label, plan.currency, money0, lambda m, c, item=item: f"={item}_{m.id}",
                        lambda m, item=item: f"prc_{item}_{m.id}")
    return sheet
