"""Committed capacity: a block of GPUs reserved on a market for a term, billed whether used or not.

Rule: a commitment reserves `gpus` GPUs of one type on a market for
`term_months` from its `start`: gpus x 730.5 hours a month (24 x 365.25 / 12)
of the term, at the market's price for that GPU (the committed price). The
GPU-hours every line item buys on that market for that GPU (each item declares
them: compute's allocated hours, failed runs' share of them, ...) consume the
block month by month, as they are bought. Those hours are already in their
items at the committed price; this line adds what the block costs beyond them:
the idle hours (reserved, unused) at the committed price, plus the overflow
(hours the block cannot hold in a month) at the fallback rate less the
committed price. So the items' cost of those hours + this = reserved hours x
committed price + overflow x fallback rate. Where the market's prices move
(`price_change_per_year`), the committed price stays flat for the term and the
fallback rate of month n is the stated one x the market's price index of the
month. A market pays the commitments of the markets it buys from (a hybrid,
those it uses). Over time, month by month. Beside the total, commit or rent:
the block's cost (reserved x committed price + overflow at the month's fallback
rate) against renting its used hours on demand at the month's fallback rate,
and the saving from committing (on demand - the block).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field, PrivateAttr, model_validator

from ..markets.registry import gpu_price, priced_markets
from ..plan.inputs import InputCell, timed, walk
from ..plan.model import GPU_PATTERN, ID_PATTERN, Plan, Price, Strict, check_start, suggest
from ..plan.numbers import Num, num
from ..plan.timing import MAX_MONTHS, Months, Start, offset_of, share
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, Rows
from .base import Line, LineItem, Section, rule
from .markets import markets_used
from .phasing import number, price_index
from .scenario import MarketView
from .units import HOURS_PER_MONTH, MONTHS_PER_YEAR

TITLE = "Commitment"
LINE = Line("commitment", "Commitment: idle and overflow", billed="gpu")
# commit or rent on demand (issue 29, item 4): beside the total, never added to it
BLOCK = Line("commitment_block", "Commit: the block (reserved + overflow at the fallback)", in_total=False)
ON_DEMAND = Line("commitment_on_demand", "Rent on demand instead (its used hours at the fallback)", in_total=False)
SAVING = Line("commitment_saving", "Saving from committing (on demand - the block)", in_total=False)
# commit now or wait (issue 29, item 4): the block started `wait_months` later, ending as planned, at the price then
WAIT = Line("commitment_wait", "Wait, then commit (the rest of the term at the price then)", in_total=False)
WAIT_SAVING = Line("commitment_wait_saving", "Saving from committing now (waiting - the block)", in_total=False)
COMPARISON = (BLOCK, ON_DEMAND, SAVING, WAIT, WAIT_SAVING)


class Commitment(Strict):
    market: str = Field(pattern=ID_PATTERN, description="market the block is reserved on; its price for `gpu` "
                                                         "is the committed price")
    gpu: str = Field(pattern=GPU_PATTERN)
    gpus: Annotated[Num, num(0, 1e6, gt=True, unit="GPUs")]
    term_months: Months
    start: Start | None = Field(None, description="a month (2026-03) or months after the plan's start; "
                                                  "default the plan's start")
    fallback_price_per_gpu_hour: Price = Field(description="on-demand rate of the hours the block cannot hold")
    wait_months: Annotated[Num, num(0, MAX_MONTHS, unit="months", description=(
        "commit now or wait: the comparison rents this many months on demand, then commits for the rest of "
        "the term at the price then; default half the term"))] | None = None
    note: str = Field("", max_length=2000)
    _wait_default: bool = PrivateAttr(False)

    @model_validator(mode="after")
    def _default_wait(self):
        if self.wait_months is None:  # frozen: set once here, as if the plan had given it (as a workload's MFU)
            object.__setattr__(self, "wait_months", Num.of(self.term_months.base / 2))
            self._wait_default = True
        return self

    @property
    def wait_default(self) -> bool:
        """Whether `wait_months` is the default (half the term), not the plan's."""
        return self._wait_default


def _commitments(plan: Any) -> list[Any]:
    return SECTION.of(plan)


def input_cells(plan: Plan) -> list[InputCell]:
    cells: list[InputCell] = []
    for i, c in enumerate(_commitments(plan)):
        name, label = f"cmt_{c.market}_{c.gpu.lower()}", f"Commitment {c.market} {c.gpu}"
        found = timed(plan, list(walk(c, ("commitments", i), (name,), label)), ("commitments", i), name, label,
                      c.start, None)
        cells += [dataclasses.replace(cell, note="default: half the term") if c.wait_default and
                  cell.path[2:] == ("wait_months",) else cell for cell in found]
    return cells


def validate(plan: Plan) -> None:
    priced = priced_markets(plan)
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(_commitments(plan)):
        at = f"`commitments[{i}]"
        market = priced.get(c.market)
        if market is None:
            raise ValueError(f"{at}.market`: `{c.market}` is not a market with prices{suggest(c.market, priced)}")
        if c.gpu not in market.gpu_prices:
            raise ValueError(f"{at}.gpu`: market `{c.market}` has no price for GPU `{c.gpu}` (the committed "
                             f"price){suggest(c.gpu, market.gpu_prices)}")
        if (c.market, c.gpu) in seen:
            raise ValueError(f"{at}`: another commitment already reserves `{c.gpu}` on `{c.market}`")
        seen.add((c.market, c.gpu))
        check_start(plan, c.start, f"commitments[{i}].start")


SECTION = Section("commitments", list[Commitment], Field(default_factory=list, max_length=20), "Commitments",
                  "cmt_", input_cells, validate=validate)


def lines(plan: Any) -> list[Line]:
    return [LINE, *COMPARISON] if _commitments(plan) else []


# --- the reference rule -------------------------------------------------------------------

def term_window(plan: Any, c: Any) -> tuple[float, float]:
    offset = offset_of(plan.start, c.start)
    return (0.0 if offset is None else number(offset)), number(c.term_months)  # number: float, or simulate's array


def used_here(view: MarketView) -> list[tuple[int, Any]]:
    """The commitments `view.market` pays: its own, or those of the markets a hybrid uses."""
    used = {m.id for m in markets_used(view.plan, view.market)}
    return [(i, c) for i, c in enumerate(view.plan.commitments) if c.market in used]


def block_hours(view: MarketView, c: Any) -> tuple[list[float], list[float]]:
    """(reserved, used) GPU-hours of a commitment, month by month."""
    start, term = term_window(view.plan, c)
    reserved = [c.gpus * HOURS_PER_MONTH * share(start, term, n) * term for n in range(view.months)]
    used = [0.0] * view.months
    for bought in view.gpu_hours():
        if bought.gpu == c.gpu and bought.market == c.market:
            for n, value in enumerate(view.spread(bought.hours, bought.window)):
                used[n] += value
    return reserved, used


def _months(view: MarketView, c: Any) -> list[tuple[Any, Any, Any, Any, Any]]:
    """Per month: reserved and used GPU-hours, the committed price, the fallback rate of the month (the stated
    one x the market's price index, where its prices move) and that index."""
    market = next(m for m in view.plan.markets if m.id == c.market)
    price = gpu_price(market, c.gpu)
    reserved, used = block_hours(view, c)
    index = price_index(view, market) or [1.0] * view.months
    return [(r, u, price, c.fallback_price_per_gpu_hour * i, i) for r, u, i in zip(reserved, used, index, strict=True)]


def _monthly_cost(view: MarketView, c: Any) -> list[float]:
    return [_positive(r - u) * price + _positive(u - r) * (fallback - price)
            for r, u, price, fallback, _ in _months(view, c)]


def _waited(view: MarketView, c: Any) -> list[Any]:
    """Commit after waiting: each month's cost where the block starts `wait_months` later and ends as planned
    (its term shortened by the wait), at the committed price x the market's price change over the wait; the
    hours it does not hold (all of them before it starts) at the month's fallback rate."""
    start, term = term_window(view.plan, c)
    wait = number(c.wait_months)
    later = _positive(term - wait)
    market = next(m for m in view.plan.markets if m.id == c.market)
    change = market.price_change_per_year
    moved = 1.0 if change is None else (1 + change) ** (wait / MONTHS_PER_YEAR)
    costs = []
    for n, (_, u, price, fallback, _) in enumerate(_months(view, c)):
        reserved = c.gpus * HOURS_PER_MONTH * share(start + wait, later, n) * later
        costs.append(reserved * price * moved + _positive(u - reserved) * fallback)
    return costs


def comparison(view: MarketView) -> dict[str, Any]:
    """Commit or rent, over the commitments the market pays: the blocks' cost (reserved x committed price +
    overflow at the month's fallback rate), their used hours on demand at that rate, and the saving; and commit
    now or wait (`_waited`) and what committing now saves against waiting."""
    block = on_demand = wait = 0.0
    for _, c in used_here(view):
        for r, u, price, fallback, _ in _months(view, c):
            block = block + r * price + _positive(u - r) * fallback
            on_demand = on_demand + u * fallback
        wait = wait + sum(_waited(view, c), 0.0)
    return {BLOCK.id: block, ON_DEMAND.id: on_demand, SAVING.id: on_demand - block, WAIT.id: wait,
            WAIT_SAVING.id: wait - block}


def _positive(x: Any) -> Any:
    """max(0, x) of a number, or of each sample of a numpy array (`simulate` runs this rule on arrays)."""
    return x.clip(min=0.0) if hasattr(x, "clip") else max(0.0, x)


def monthly(view: MarketView) -> dict[str, list[float]]:
    if not view.plan.commitments:
        return {}
    months = [[0.0] * view.months] + [_monthly_cost(view, c) for _, c in used_here(view)]
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


def reference(view: MarketView) -> dict[str, float]:
    if not view.plan.commitments:
        return {}
    return {LINE.id: sum((sum(_monthly_cost(view, c)) for _, c in used_here(view)), 0.0)} | comparison(view)


# --- the sheet ----------------------------------------------------------------------------

def _uses(plan: Plan, market: Any, c: Any) -> bool:
    return c.market in {m.id for m in markets_used(plan, market)}


def _where_used(plan: Plan, c: Any, ref: str) -> Callable[[Any], str]:
    """A placeholder: `ref` (`{market}` the column's market id) where the market pays `c`, the named zero elsewhere."""
    return lambda m: ref.format(market=m.id) if _uses(plan, m, c) else "k_none"


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    if not _commitments(plan):
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Commitment: idle and overflow",
                      "A reserved block is billed for every hour of its term. Its used hours are in compute; "
                      "here the idle hours at the committed price, and the overflow at the fallback rate less it "
                      "(the hours month by month are on the Cash flow sheet).")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    parts: list[int] = []
    compared: dict[str, list[int]] = {line.id: [] for line in COMPARISON}
    for i, c in enumerate(_commitments(plan)):
        key, name = ("commitments", i), f"com_{i + 1}"
        market = next(m for m in plan.markets if m.id == c.market)
        sheet.section(f"Commitment: {c.gpus.base:g} x {c.gpu} on {c.market}")
        reserved = sheet.row("Reserved GPU-hours (term)", "GPU-hours", st.HOURS, "={hours}", f"{name}_reserved",
                             hours=_where_used(plan, c, f"cf_com_{i + 1}_reserved_{{market}}"))
        sheet.row("Used GPU-hours (its workloads, failed runs included)", "GPU-hours", st.HOURS, "={hours}",
                  f"{name}_used", hours=_where_used(plan, c, f"cf_com_{i + 1}_used_{{market}}"))
        idle = sheet.row("Idle GPU-hours (reserved, not used)", "GPU-hours", st.HOURS, "={hours}", f"{name}_idle",
                         hours=_where_used(plan, c, f"cf_com_{i + 1}_idle_{{market}}"))
        over = sheet.row("Overflow GPU-hours (more than the block holds)", "GPU-hours", st.HOURS, "={hours}",
                         f"{name}_over", hours=_where_used(plan, c, f"cf_com_{i + 1}_over_{{market}}"))
        committed, fallback_input = inp.price(market, c.gpu), inp[key + ("fallback_price_per_gpu_hour",)]
        price = sheet.row(f"Committed price per GPU-hour ({c.gpu})", f"{plan.currency}/GPU-hour", money2, "={price}",
                          f"{name}_price", price=_where_used(plan, c, committed))
        fallback = sheet.row("Fallback price per GPU-hour (overflow)", f"{plan.currency}/GPU-hour", money2, "={price}",
                             f"{name}_fallback", price=_where_used(plan, c, fallback_input))
        sheet.row("Reserved cost (reserved x committed price)", plan.currency, money0, "={hours}*{price}",
                  f"{name}_reserved_cost", hours=reserved, price=price)
        if market.price_change_per_year is None:
            parts.append(sheet.row("Idle cost + overflow premium", plan.currency, money0,
                                   "={idle}*{price}+{over}*({fallback}-{price})", f"{name}_cost", item=LINE.id,
                                   idle=idle, over=over, price=price, fallback=fallback))
        else:  # the fallback rate of each month moves with the market's prices: its months are on the Cash flow
            parts.append(sheet.row("Idle cost + overflow premium (the fallback at the month's price, Cash flow)",
                                   plan.currency, money0, "={cost}", f"{name}_cost", item=LINE.id,
                                   cost=_where_used(plan, c, f"cf_com_{i + 1}_cost_{{market}}")))
        sheet.section("Commit or rent on demand (the fallback at the month's price, Cash flow)")
        block = sheet.row(BLOCK.label, plan.currency, money0, "={cost}", f"{name}_block",
                          cost=_where_used(plan, c, f"cf_com_{i + 1}_block_{{market}}"))
        on_demand = sheet.row(ON_DEMAND.label, plan.currency, money0, "={cost}", f"{name}_on_demand",
                              cost=_where_used(plan, c, f"cf_com_{i + 1}_on_demand_{{market}}"))
        saving = sheet.row(SAVING.label, plan.currency, money0, "={on_demand}-{block}", f"{name}_saving",
                           on_demand=on_demand, block=block)
        sheet.section("Commit now or wait (on demand until the block starts; it ends as planned)")
        waited = sheet.row("Months waited before committing", "months", st.COUNT, "={wait}", f"{name}_wait_months",
                  wait=_where_used(plan, c, inp[key + ("wait_months",)]))
        moved = ("={price}" if market.price_change_per_year is None else
                 "={price}*(k_one+{change})^({wait}/k_months_per_year)")
        sheet.row("Committed price after the wait (the market's price change over it)", f"{plan.currency}/GPU-hour",
                  money2, moved, f"{name}_wait_price", price=price, wait=waited,
                  change=_where_used(plan, c, inp.market(plan, market, "price_change_per_year")
                                     if market.price_change_per_year is not None else "k_none"))
        wait = sheet.row(WAIT.label, plan.currency, money0, "={cost}", f"{name}_wait",
                         cost=_where_used(plan, c, f"cf_com_{i + 1}_wait_{{market}}"))
        wait_saving = sheet.row(WAIT_SAVING.label, plan.currency, money0, "={wait}-{block}", f"{name}_wait_saving",
                                wait=wait, block=block)
        for line, row in zip(COMPARISON, (block, on_demand, saving, wait, wait_saving), strict=True):
            compared[line.id].append(row)
        sheet.gap()
    sheet.section("All commitments")
    sheet.row(LINE.label, plan.currency, money0, "=SUM({parts})", LINE.id, kind="figure", item=LINE.id,
              parts=Rows(tuple(parts)))
    sheet.section("Commit or rent, all commitments: beside the total, not added to it")
    for line in COMPARISON:
        sheet.row(line.label, plan.currency, money0, "=SUM({parts})", line.id, kind="figure", item=line.id,
                  parts=Rows(tuple(compared[line.id])))


def timing(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    for i, c in enumerate(_commitments(plan)):
        key = ("commitments", i)
        cf.flag(f"term_{i + 1}", f"Commitment term: {c.gpu} on {c.market}", f"={inp[key + ('start',)]}",
                f"={inp[key + ('term_months',)]}")
        wait = inp[key + ("wait_months",)]
        cf.flag(f"wait_{i + 1}", f"Commitment after the wait: {c.gpu} on {c.market}",
                f"={inp[key + ('start',)]}+{wait}", f"=MAX(k_none,{inp[key + ('term_months',)]}-{wait})")


def _used_terms(cf: CashFlow, m: Any, c: Any) -> tuple[dict[str, Any], list[str]]:
    """The block's used hours in a month: per workload, the terms of the hours items buy for it, x its flag."""
    by_workload: dict[tuple[str, str], list[str]] = {}
    for bought in cf.gpu_hours(m):
        if bought.gpu == c.gpu and bought.market == c.market:
            by_workload.setdefault((bought.workload, bought.flag), []).append(bought.term)
    refs: dict[str, Any] = {f"f{j}": cf.flags[flag] for j, (_, flag) in enumerate(by_workload)}
    return refs, [f"({'+'.join(terms)})*{{f{j}}}" for j, terms in enumerate(by_workload.values())]


@dataclasses.dataclass(frozen=True)
class _RowOf:
    """A Cash flow row made further down the same list (`cash_flow`): its number, once it is there."""
    name: str


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    if not _commitments(plan):
        return
    cf.section(TITLE)
    compared: list[tuple[str, str, str, Any, dict[str, Any]]] = []
    for m in plan.markets:
        rows = []
        for i, c in enumerate(_commitments(plan)):
            if not _uses(plan, m, c):
                continue
            key, name = ("commitments", i), f"cf_com_{i + 1}"
            flag = cf.flags[f"term_{i + 1}"]
            block: dict[str, Any] = {"gpus": inp[key + ("gpus",)], "flag": flag, "months": inp[key + ("term_months",)]}
            reserved = cf.row(f"{c.gpu} on {c.market}: reserved GPU-hours",
                              "={gpus}*k_hours_per_month*{months}*{flag}", f"{name}_reserved_{m.id}", m, block,
                              unit="GPU-hours", fmt=st.HOURS)
            refs, terms = _used_terms(cf, m, c)
            used = cf.row(f"{c.gpu} on {c.market}: used GPU-hours", "=" + ("+".join(terms) or "k_none"),
                          f"{name}_used_{m.id}", m, refs, unit="GPU-hours", fmt=st.HOURS)
            both: dict[str, Any] = {"reserved": reserved, "used": used}
            idle = cf.row(f"{c.gpu} on {c.market}: idle GPU-hours", "=MAX(k_none,{reserved}-{used})",
                          f"{name}_idle_{m.id}", m, both, unit="GPU-hours", fmt=st.HOURS)
            over = cf.row(f"{c.gpu} on {c.market}: overflow GPU-hours", "=MAX(k_none,{used}-{reserved})",
                          f"{name}_over_{m.id}", m, both, unit="GPU-hours", fmt=st.HOURS)
            price = inp.price(next(x for x in plan.markets if x.id == c.market), c.gpu)
            # the fallback rate of the month: the stated one x the market's price index where its prices move
            cells: dict[str, Any] = {"idle": idle, "over": over, "used": used, "reserved": reserved, "price": price,
                                     "fallback": inp[key + ("fallback_price_per_gpu_hour",)]}
            rate = "{fallback}"
            if c.market in cf.price_rows:
                cells["index"], rate = cf.price_rows[c.market], "{fallback}*{index}"
            rows.append(cf.row(f"{c.gpu} on {c.market}: idle cost + overflow premium",
                               "={idle}*{price}+{over}*(" + rate + "-{price})", f"{name}_cost_{m.id}", m, cells,
                               item=LINE.id))
            compared.append((f"{c.gpu} on {c.market}: commit, the block (reserved + overflow at the fallback)",
                             "={reserved}*{price}+{over}*" + rate, f"{name}_block_{m.id}", m, cells))
            compared.append((f"{c.gpu} on {c.market}: rent on demand instead (used at the fallback)",
                             "={used}*" + rate, f"{name}_on_demand_{m.id}", m, cells))
            waited = cells | {"flag": cf.flags[f"wait_{i + 1}"], "gpus": inp[key + ("gpus",)],
                              "months": f"cf_t_wait_{i + 1}_months", "wait_price": f"com_{i + 1}_wait_price_{m.id}"}
            compared.append((f"{c.gpu} on {c.market}: reserved GPU-hours after the wait",
                             "={gpus}*k_hours_per_month*{months}*{flag}", f"{name}_wait_reserved_{m.id}", m, waited))
            compared.append((f"{c.gpu} on {c.market}: wait, then commit (the hours it does not hold at the fallback)",
                             "={reserved}*{wait_price}+MAX(k_none,{used}-{reserved})*" + rate, f"{name}_wait_{m.id}",
                             m, waited | {"reserved": _RowOf(f"{name}_wait_reserved_{m.id}")}))
        cf.line(LINE.id, LINE.label, m, rows)
    made: dict[str, int] = {}
    for label, template, name, market, cells in compared:  # after the lines: a line's rows lie above it
        cells = {key: made[ref.name] if isinstance(ref, _RowOf) else ref for key, ref in cells.items()}
        made[name] = cf.row(label, template, name, market, cells)
    cf.gap()


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE, *COMPARISON), lines=lines, reference=reference,
                build=build,
                sheet_titles=lambda plan, taken: [TITLE] if _commitments(plan) else [], fixed_title=TITLE,
                name_prefix="com_", section=SECTION, monthly=monthly, cash_flow=cash_flow, timing=timing)
