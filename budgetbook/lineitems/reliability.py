"""Reliability: what a market costs beyond its price per GPU-hour (issue 29): goodput, SLA, support, people-days.

Rule: each workload's compute x the overhead share of the market it pays: the goodput uplift
(lost / goodput, where lost = interruptions per day / 24 x (half a checkpoint interval + the
restart hours) is the share of paid hours redone after an interruption, and goodput = 1 - lost),
plus the support share, less the SLA credit share, plus the verification shares of a
decentralized market (work executed twice, work rejected and redone); then the people-days a
market takes (one-time setup, debugging days per month x its months, supplier vetting) x the
cost of an engineering day (`people.engineering_day_cost`); a hybrid pays the overheads of the
markets it uses, each market's people-days once. A market without `reliability:` costs
nothing here. Over time: the shares follow each workload's compute, the days fall in the first
month, as a market's extra engineering days do.
"""

from __future__ import annotations

from typing import Any

from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, Rows
from . import compute
from .base import Line, LineItem, rule
from .markets import markets_used, paying_market
from .phasing import FIRST_MONTH, run_window
from .scenario import MarketView
from .units import HALF_INTERVAL, HOURS_PER_DAY, ONE

TITLE = "Reliability"
LINE = Line("reliability", "Reliability and verification")
SHARES = ("support_share", "redundant_share", "rejected_share")
DAYS = ("setup_days", "vetting_days")


def lost_share(r: Any) -> float:
    """The share of paid hours redone after interruptions (0 without a reliability block)."""
    if r is None:
        return 0.0
    return r.interruptions_per_day / HOURS_PER_DAY * (r.checkpoint_interval_hours * HALF_INTERVAL + r.restart_hours)


def overhead_share(r: Any) -> float:
    """Goodput uplift + support + verification - SLA credit, as a share of the compute paid on the market."""
    if r is None:
        return 0.0
    lost = lost_share(r)
    return lost / (ONE - lost) + sum(getattr(r, key) for key in SHARES) - r.sla_credit_share


def people_days(r: Any) -> float:
    if r is None:
        return 0.0
    return sum(getattr(r, key) for key in DAYS) + r.debugging_days_per_month * r.months


def _paid(view: MarketView, w: Any) -> tuple[float, Any]:
    """The workload's compute on the market and the reliability block of the market it pays (or None)."""
    done = compute.workload_compute(view, w)
    return done.cost, next(m for m in view.plan.markets if m.id == done.pays).reliability


def workload_cost(view: MarketView, w: Any) -> float:
    """One workload's reliability and verification: its compute x the overhead share of the market it pays."""
    cost, r = _paid(view, w)
    return cost * overhead_share(r)


def _days_cost(view: MarketView) -> float:
    days = sum(people_days(m.reliability) for m in markets_used(view.plan, view.market))
    return days * view.plan.people.engineering_day_cost


def parts(view: MarketView) -> dict[str, float]:
    """The line split as the gap to the cheapest market reads it (`gap.py`), each part computed on its own:
    goodput (the hours redone, lost / goodput of the compute), verification (redundant and rejected work, the
    vetting days) and the rest, overheads (support less SLA credits, setup and debugging days)."""
    out = {"goodput": 0.0, "verification": 0.0, "overheads": 0.0}
    for w in view.plan.workloads:
        cost, r = _paid(view, w)
        if r is None:
            continue
        lost = lost_share(r)
        out["goodput"] += cost * lost / (ONE - lost)
        out["verification"] += cost * (r.redundant_share + r.rejected_share)
        out["overheads"] += cost * (r.support_share - r.sla_credit_share)
    day = view.plan.people.engineering_day_cost
    for m in markets_used(view.plan, view.market):
        r = m.reliability
        if r is not None:
            out["verification"] += r.vetting_days * day
            out["overheads"] += (r.setup_days + r.debugging_days_per_month * r.months) * day
    return out


def reference(view: MarketView) -> dict[str, float]:
    return {LINE.id: sum(workload_cost(view, w) for w in view.plan.workloads) + _days_cost(view)}


def monthly(view: MarketView) -> dict[str, list[float]]:
    months = [view.spread(workload_cost(view, w), run_window(view.plan, w)) for w in view.plan.workloads]
    months.append(view.spread(_days_cost(view), FIRST_MONTH))
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


def lines(plan: Plan) -> list[Line]:
    return [LINE] if any(m.reliability is not None for m in plan.markets) else []


# --- the sheet ----------------------------------------------------------------------------

def _name(plan: Plan, inp: Inputs, market: Any, key: str) -> str:
    """The input a formula reads: the market's own, or the named zero where it states no reliability."""
    if market.reliability is None:
        return "k_none"
    return inp[("markets", [m.id for m in plan.markets].index(market.id), "reliability", key)]


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    if not lines(plan):
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Reliability and verification",
                      "What a market costs beyond its price: hours redone after interruptions (goodput), "
                      "support, SLA credits, verification, and the people-days it takes.")
    money0 = st.money(plan.currency)
    of = lambda w, key: lambda m: _name(plan, inp, paying_market(plan, w, m), key)  # noqa: E731
    costs, goodputs, verifies = [], [], []
    for w in plan.workloads:
        name = f"rel_{w.id}"
        sheet.section(f"Workload: {w.label or w.id} ({w.id})")
        lost = sheet.row("Share of paid hours redone (interruptions/day / 24 x (interval x half + restart))",
                         "share", st.SHARE, "={n}/k_hours_per_day*({i}*k_half_interval+{r})", f"{name}_lost",
                         n=of(w, "interruptions_per_day"), i=of(w, "checkpoint_interval_hours"),
                         r=of(w, "restart_hours"))
        goodput = sheet.row("Goodput (share of paid hours that train)", "share", st.SHARE, "=k_one-{lost}",
                            f"{name}_goodput", lost=lost)
        share = sheet.row("Overhead (lost / goodput + support + redundant + rejected - SLA credit)", "share",
                          st.SHARE, "={lost}/{goodput}+{support}+{redundant}+{rejected}-{sla}", f"{name}_share",
                          lost=lost, goodput=goodput, support=of(w, "support_share"),
                          redundant=of(w, "redundant_share"), rejected=of(w, "rejected_share"),
                          sla=of(w, "sla_credit_share"))
        costs.append(sheet.row("Reliability and verification", plan.currency, money0, "={compute}*{share}",
                               f"{name}_cost", item=LINE.id, compute=CellOf(f"cmp_{w.id}_compute"), share=share))
        # the gap to the cheapest market (`gap.py`) reads two parts of it apart: goodput and verification
        goodputs.append(sheet.row("of which goodput (compute x lost / goodput)", plan.currency, money0,
                                  "={compute}*{lost}/{goodput}", f"{name}_goodput_cost",
                                  compute=CellOf(f"cmp_{w.id}_compute"), lost=lost, goodput=goodput))
        verifies.append(sheet.row("of which verification (compute x (redundant + rejected))", plan.currency,
                                  money0, "={compute}*({redundant}+{rejected})", f"{name}_verify_cost",
                                  compute=CellOf(f"cmp_{w.id}_compute"), redundant=of(w, "redundant_share"),
                                  rejected=of(w, "rejected_share")))
        sheet.gap()
    sheet.section("People-days of the markets used (each once)")

    def days(m: Any) -> str:
        terms = [f"{_name(plan, inp, u, 'setup_days')}+{_name(plan, inp, u, 'vetting_days')}+"
                 f"{_name(plan, inp, u, 'debugging_days_per_month')}*{_name(plan, inp, u, 'months')}"
                 for u in markets_used(plan, m)]
        return "+".join(terms) or "k_none"

    day_rows = sheet.row("People-days (setup + vetting + debugging days per month x months)", "days", st.COUNT,
                         "={days}", "rel_days", days=days)
    day_cost = sheet.row("Cost of one engineering day", f"{plan.currency}/day", money0, "={cost}", "rel_day_cost",
                         cost=inp[("people", "engineering_day_cost")])
    people = sheet.row("People-days", plan.currency, money0, "={days}*{cost}", "rel_people", item=LINE.id,
                       days=day_rows, cost=day_cost)
    vetting = sheet.row("of which vetting days (verification)", "days", st.COUNT, "={days}", "rel_vetting_days",
                        days=lambda m: "+".join(_name(plan, inp, u, "vetting_days") for u in markets_used(plan, m))
                        or "k_none")
    sheet.gap()
    sheet.row(LINE.label, plan.currency, money0, "=SUM({parts})+{people}", LINE.id, kind="figure", item=LINE.id,
              parts=Rows(tuple(costs)), people=people)
    sheet.row("of which goodput", plan.currency, money0, "=SUM({parts})", "rel_goodput", parts=Rows(tuple(goodputs)))
    sheet.row("of which verification (with the vetting days)", plan.currency, money0, "=SUM({parts})+{days}*{cost}",
              "rel_verification", parts=Rows(tuple(verifies)), days=vetting, cost=day_cost)


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    if not lines(plan):
        return
    cf.section(TITLE)
    for m in plan.markets:
        rows = [cf.spread(f"{w.label or w.id}: reliability", f"rel_{w.id}_cost_{m.id}", cf.flags[f"run_{w.id}"],
                          f"cf_rel_{w.id}_{m.id}", m, LINE.id) for w in plan.workloads]
        rows.append(cf.spread("People-days", f"rel_people_{m.id}", cf.flags["first"], f"cf_rel_people_{m.id}",
                              m, LINE.id))
        cf.line(LINE.id, LINE.label, m, rows)
    cf.gap()


def _titles(plan: Plan, taken: set[str]) -> list[str]:
    return [TITLE] if lines(plan) else []


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lines, reference=reference, build=build,
                sheet_titles=_titles, fixed_title=TITLE, name_prefix="rel_", monthly=monthly, cash_flow=cash_flow)
