"""`People`: roles x count x months x loaded cost, plus the extra engineering days a market costs."""

from __future__ import annotations

from ..plan.model import Plan
from ..workbook import style as st
from ..workbook.rows import at, formula_row, plus, section, start_calc_sheet, sum_of
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs


def build_people(book: Book, plan: Plan, inp: Inputs) -> Sheet:
    sheet = start_calc_sheet(book, plan, "People", "calc", "People",
                             "Fully loaded cost of the team, plus the tooling days a market adds "
                             "(a hybrid pays each market it uses once).")
    money0 = st.money(plan.currency)
    section(sheet, "Team")
    roles = []
    for i, role in enumerate(plan.people.roles):
        key = ("people", "roles", i)
        roles.append(formula_row(
            book, sheet, plan, f"{role.role} (count x months x monthly cost)", plan.currency, money0,
            lambda m, c: "=" + "*".join(inp[key + (f,)] for f in ("count", "months", "monthly_cost")),
            lambda m, i=i: f"ppl_role{i + 1}_{m.id}", item="people"))
    team = formula_row(book, sheet, plan, "Team", plan.currency, money0,
                       lambda m, c: "=" + (sum_of([at(sheet, r, c) for r in roles]) if roles else "k_none"),
                       lambda m: f"ppl_team_{m.id}", item="people")
    sheet.row += 1
    section(sheet, "Extra engineering days of the market")

    def days(m, c):
        used = [m] if m.hybrid is None else [plan.market(i) for i in dict.fromkeys(m.hybrid.assign.values())]
        return "=" + plus([inp.market(plan, u, "extra_engineering_days") for u in used])

    day_count = formula_row(book, sheet, plan, "Extra engineering days", "days", st.COUNT, days,
                            lambda m: f"ppl_days_{m.id}", item="people")
    day_cost = formula_row(book, sheet, plan, "Cost of one engineering day", f"{plan.currency}/day", money0,
                           lambda m, c: "=" + inp[("people", "engineering_day_cost")],
                           lambda m: f"ppl_day_cost_{m.id}", item="people")
    extra = formula_row(book, sheet, plan, "Extra engineering", plan.currency, money0,
                        lambda m, c: f"={at(sheet, day_count, c)}*{at(sheet, day_cost, c)}",
                        lambda m: f"ppl_extra_{m.id}", item="people")
    sheet.row += 1
    formula_row(book, sheet, plan, "People", plan.currency, money0,
                lambda m, c: f"={at(sheet, team, c)}+{at(sheet, extra, c)}",
                lambda m: f"people_{m.id}", kind="figure", item="people")
    return sheet
