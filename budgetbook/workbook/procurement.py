"""`Procurement`: the same work bought on each market, side by side, and what the cheapest saves against each."""

from __future__ import annotations

from ..lineitems import gap
from ..lineitems.registry import beside_lines, development_lines
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.rows import FIRST_COL, CalcSheet, CellOf, NameOf, Rows
from ..xlsx.cell_grid import col_letters
from .decision import SAVES


def build_procurement(book: Blueprint, plan: Plan) -> None:
    sheet = CalcSheet(book, plan, "Procurement", "output", "Procurement: markets side by side",
                      "Each column buys the same plan on one market (a hybrid splits workloads "
                      "across markets). The cheapest total is highlighted.")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    first, last = col_letters(FIRST_COL), col_letters(FIRST_COL + len(plan.markets) - 1)
    sheet.section("Compute bought")
    alloc = sheet.row("Allocated GPU-hours", "GPU-hours", st.HOURS, "={alloc}", "prc_alloc", alloc=CellOf("cmp_alloc"))
    price = sheet.row("Average price per GPU-hour (compute / allocated hours)", f"{plan.currency}/GPU-hour", money2,
              "=IF({alloc}=k_none,k_none,{compute}/{alloc})", "prc_avg_price", alloc=alloc, compute=NameOf("compute"))
    sheet.gap()
    sheet.section("Development cost")
    rows = [sheet.row(line.label, plan.currency, money0, "={line}", f"prc_{line.id}", line=NameOf(line.id))
            for line in development_lines(plan)]
    total = sheet.row("Total development cost", plan.currency, money0, "=SUM({parts})", "prc_total",
                      style="total", parts=Rows(tuple(rows)))
    lowest = f"MIN(${first}${total}:${last}${total})"  # "saves" as Summary and `show` say it (`decision.SAVES`)
    diff = sheet.row(SAVES, plan.currency, money0, "={total}-" + lowest, "prc_diff", total=total)
    sheet.row(f"{SAVES} (%)", "%", st.PERCENT, "=IF({total}>k_none,{diff}/{total},k_none)", "prc_diff_pct",
              total=total, diff=diff)
    sheet.sheet.lowest_in_row.append(f"{first}{total}:{last}{total}")
    gap.procurement_rows(sheet, plan, [line.id for line in development_lines(plan)], total, alloc, price)
    beside = beside_lines(plan)
    if beside:
        sheet.gap()
        sheet.section("Beside the total, never added into it")
        for line in beside:
            sheet.row(line.label, plan.currency, money0, "={line}", f"prc_{line.id}", line=NameOf(line.id))
