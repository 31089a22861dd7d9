"""`Fit`: what the plan's `fit:` budget buys on each market, live where the cost is linear in the input.

Per market column: the budget and the input as typed on Inputs, the total at it, the cost that moves with
the input (the workload's compute, failed runs and reliability, + storage & egress when solving runs, x
(1 + the contingency share): the workbook's own rows), the costs that do not (total - moving), and the
closed form x0 x (budget - fixed) / moving: type another price, MFU or budget and it moves. Beside it,
`fit`'s own answer and whether the closed form is it, computed by budgetbook (`planning/fit_book.py`, its
reference); the answer row takes the closed form where it is, fit's value elsewhere.
"""

from __future__ import annotations

from typing import Any

from ..lineitems import reliability
from ..lineitems.budget_fit import SECTION, SOLVED, TITLE, workload_index
from ..plan.model import Plan
from ..planning.fit_book import COMPUTED, computed
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, NameOf, market_col
from .computed import Computed, Lazy

UNITS = {"tokens": ("tokens", st.SCALED), "params": ("parameters", st.SCALED), "gpus": ("GPUs", st.DECIMALS),
         "days": ("days", st.DECIMALS), "runs": ("runs", st.DECIMALS)}
LABELS = {"linear": ("The closed form is fit's answer (1) or not (0), computed by budgetbook", "flag", st.COUNT),
          "computed": ("`budgetbook fit`'s answer, computed by budgetbook (0: none, the budget is out of reach)",
                       None, None)}


def build_fit(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    section = SECTION.of(plan)
    if section is None:
        return
    index = workload_index(plan)
    w = plan.workloads[index]
    unit, fmt = UNITS[section.solve]
    cur = plan.currency
    money0 = st.money(cur)
    what = f"{w.label or w.id}: {section.solve}"
    sheet = CalcSheet(book, plan, TITLE, "output", f"Fit: the {section.solve} a budget buys",
                      f"{what}, solved so that each market's total development cost equals the budget, every other "
                      "input held; live where the total is linear in it (docs/planning.md).")
    budget = sheet.row("Budget (the total development cost to spend)", cur, money0, "={budget}", "fits_budget",
                       budget=inp[("fit", "budget")])
    x0 = sheet.row(f"{what} in the plan", unit, fmt, "={x}", "fits_x0", x=inp[("workloads", index,
                                                                              *SOLVED[section.solve][1])])
    total = sheet.row("Total development cost at it", cur, money0, "={total}", "fits_total", total=NameOf("total"))
    parts: dict[str, Any] = {"compute": CellOf(f"cmp_{w.id}_compute"), "failed": CellOf(f"fail_{w.id}_cost")}
    if reliability.lines(plan):
        parts["reliability"] = CellOf(f"rel_{w.id}_cost")
    if section.solve == "runs" and w.checkpoints is not None:
        parts["storage"] = CellOf(f"stg_{w.id}_cost")
    summed = "SUM(" + ",".join(f"{{{key}}}" for key in parts) + ")"
    named = ", ".join(parts).replace("failed", "failed runs").replace("storage", "storage & egress")
    if getattr(plan, "contingency", None) is not None:
        moving = sheet.row(f"Cost that moves with it (the workload's {named}, x (1 + contingency share))", cur,
                           money0, f"={summed}*(k_one+{{share}})", "fits_moving", share=CellOf("cnt_share"), **parts)
    else:
        moving = sheet.row(f"Cost that moves with it (the workload's {named})", cur, money0, f"={summed}",
                           "fits_moving", **parts)
    fixed = sheet.row("Costs that do not move (total - moving)", cur, money0, "={total}-{moving}", "fits_fixed",
                      total=total, moving=moving)
    closed = sheet.row("Closed form: in the plan x (budget - fixed) / moving (0: the budget does not pass the "
                       "fixed costs)", unit, fmt,
                       "=IF(AND({moving}>k_none,{budget}>{fixed}),{x0}*({budget}-{fixed})/{moving},k_none)",
                       "fits_closed", moving=moving, budget=budget, fixed=fixed, x0=x0)
    sheet.gap()
    result = Lazy.of(computed, plan)
    rows = {}
    for key in COMPUTED:
        label, shown, number = LABELS[key]
        row = rows[key] = sheet.sheet.row
        sheet.sheet.put(row, 1, label, "label")
        sheet.sheet.put(row, 2, shown or unit, "unit", text=True)
        for market in plan.markets:
            col = market_col(plan, market)
            pick = lambda r, m=market.id, k=key: r[m][k]  # noqa: E731
            sheet.sheet.put(row, col, Computed(result, pick), "constant", number or fmt)
            book.name(f"fits_{key}_{market.id}", sheet.sheet, row, col, "constant", market=market.id)
        sheet.sheet.row += 1
    sheet.gap()
    sheet.row(f"{what} the budget buys (the closed form where it is fit's answer, else fit's)", unit, fmt,
              "=IF({linear}=k_one,{closed},{computed})", "fits_solved", style="total", linear=rows["linear"],
              closed=closed, computed=rows["computed"])
    sheet.note("Where the flag is 0 (a commitment's block, an owned cluster, an adjustment's formula, parameters "
               "whose tokens follow them, a deadline, the input's maximum) the answer is a value: `budgetbook check` "
               "says when edited inputs leave it behind; `budgetbook fit BOOK.xlsx` solves the book as it is now.")
