"""People: the team, often the largest line of a budget.

Rule: for each role, count x months x fully loaded monthly cost; plus the
extra engineering days a market costs (tooling for a decentralized market) x
the cost of one engineering day. A hybrid pays the extra days of each market it
uses once. Over time, a role is paid evenly over its `months` from its `start`
(default the plan's start); the extra engineering days fall in the plan's first
month.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..markets.registry import rate, rate_name
from ..plan.inputs import InputCell, timed, walk
from ..plan.model import MAX_ENTRIES, Plan, Strict, check_start
from ..plan.numbers import Num, num
from ..plan.timing import Start
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, Rows, sum_or_none
from .base import Line, LineItem, Section, one_sheet, rule
from .markets import markets_used
from .phasing import FIRST_MONTH, role_window
from .scenario import MarketView

TITLE = "People"
LINE = Line("people", "People")


class Role(Strict):
    role: str = Field(min_length=1, max_length=200)
    count: Annotated[Num, num(0, 1e5, unit="people")]
    months: Annotated[Num, num(0, 600, unit="months")]
    monthly_cost: Annotated[Num, num(0, 1e8, unit="money per month", description="fully loaded")]
    start: Start | None = Field(None, description="a month (2026-03) or months after the plan's start; "
                                                  "default the plan's start")
    note: str = Field("", max_length=2000)


class People(Strict):
    roles: list[Role] = Field(default_factory=list, max_length=MAX_ENTRIES)
    engineering_day_cost: Annotated[Num, num(0, 1e7, unit="money per day",
                                             description="one extra engineering day a market costs")] = Num.of(0)


def input_cells(plan: Plan) -> list[InputCell]:
    people = SECTION.of(plan)
    cells: list[InputCell] = []
    for i, role in enumerate(people.roles):
        # roles have free-text titles, so their cells are numbered
        name = f"{SECTION.input_prefix}{i + 1}"
        cells += timed(plan, list(walk(role, ("people", "roles", i), (name,), role.role)), ("people", "roles", i),
                       name, role.role, role.start, None)
    return cells + list(walk(people, ("people",), (), ""))


def validate(plan: Plan) -> None:
    for i, role in enumerate(SECTION.of(plan).roles):
        check_start(plan, role.start, f"people.roles[{i}].start")


SECTION = Section("people", People, People(), "People", "role", input_cells, validate=validate)


# --- the reference rule -------------------------------------------------------------------

def reference(view: MarketView) -> dict[str, float]:
    people = view.plan.people
    team = sum(r.count * r.months * r.monthly_cost for r in people.roles)
    extra_days = sum(rate(m, "extra_engineering_days") for m in markets_used(view.plan, view.market))
    return {LINE.id: team + extra_days * people.engineering_day_cost}


def monthly(view: MarketView) -> dict[str, list[float]]:
    people = view.plan.people
    months = [view.spread(r.count * r.months * r.monthly_cost, role_window(view.plan, r)) for r in people.roles]
    extra_days = sum(rate(m, "extra_engineering_days") for m in markets_used(view.plan, view.market))
    months.append(view.spread(extra_days * people.engineering_day_cost, FIRST_MONTH))
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


# --- the sheet ----------------------------------------------------------------------------

def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    sheet = CalcSheet(book, plan, TITLE, "calc", "People",
                      "Fully loaded cost of the team, plus the tooling days a market adds "
                      "(a hybrid pays each market it uses once).")
    money0 = st.money(plan.currency)
    sheet.section("Team")
    roles = []
    for i, role in enumerate(SECTION.of(plan).roles):
        key = ("people", "roles", i)
        roles.append(sheet.row(f"{role.role} (count x months x monthly cost)", plan.currency, money0,
                               "={count}*{months}*{cost}", f"ppl_role{i + 1}", item=LINE.id,
                               count=inp[key + ("count",)], months=inp[key + ("months",)],
                               cost=inp[key + ("monthly_cost",)]))
    team = sheet.row("Team", plan.currency, money0, sum_or_none(roles), "ppl_team", item=LINE.id,
                     parts=Rows(tuple(roles)))
    sheet.gap()
    sheet.section("Extra engineering days of the market")
    days_format = inp.count_format(*(("markets", i, "extra_engineering_days") for i in range(len(plan.markets))))
    days = sheet.row("Extra engineering days", "days", days_format, "={days}", "ppl_days", item=LINE.id,
                     days=lambda m: "+".join(rate_name(inp, used, "extra_engineering_days")
                                             for used in markets_used(plan, m)))
    day_cost = sheet.row("Cost of one engineering day", f"{plan.currency}/day", money0, "={cost}", "ppl_day_cost",
                         item=LINE.id, cost=inp[("people", "engineering_day_cost")])
    extra = sheet.row("Extra engineering", plan.currency, money0, "={days}*{cost}", "ppl_extra", item=LINE.id,
                      days=days, cost=day_cost)
    sheet.gap()
    sheet.row("People", plan.currency, money0, "={team}+{extra}", LINE.id, kind="figure", item=LINE.id,
              team=team, extra=extra)


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    cf.section(TITLE)
    for m in plan.markets:
        rows = [cf.spread(role.role, f"ppl_role{i + 1}_{m.id}", cf.flags[f"role{i + 1}"], f"cf_ppl_role{i + 1}_{m.id}",
                          m, LINE.id) for i, role in enumerate(SECTION.of(plan).roles)]
        rows.append(cf.spread("Extra engineering", f"ppl_extra_{m.id}", cf.flags["first"], f"cf_ppl_extra_{m.id}",
                              m, LINE.id))
        cf.line(LINE.id, LINE.label, m, rows)
    cf.gap()


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lambda plan: [LINE],
                reference=reference, build=build, sheet_titles=one_sheet(TITLE), fixed_title=TITLE,
                name_prefix="ppl_", section=SECTION, monthly=monthly,
                cash_flow=cash_flow)
