"""The reference model: the accounting of DESIGN.md section 3 as plain Python.

This is the executable specification that `check` holds a workbook against. It
is written apart from the workbook's formulas on purpose: the two agree over
thousands of random plans, or one of them has a bug. Each line item's rule is
in its own module (`lineitems/`), next to that item's sheet; this module walks
the registry, one market in one scenario at a time, and keeps the three
magnitudes apart: the lines that add into the total development cost, the
total, and the lines reported beside it (final-run compute, serving).
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .lineitems import gap
from .lineitems.phasing import month_count, price_index
from .lineitems.registry import LINE_ITEMS, TOTAL, gpu_hours_bought, lines
from .lineitems.scenario import MarketView, Resolved
from .lineitems.serving import serving_figures
from .markets.owned_rule import PARTS, breakeven, cluster, cost_per_gpu_hour, purchase_cash, utilization
from .markets.registry import kind_of
from .physics.model import plan_physics
from .physics.sanity import plan_notes, plan_sanity
from .plan.model import Plan
from .plan.numbers import SCENARIOS
from .plan.per_plan import PerPlan
from .plan.timing import month_labels
from .workbook.memo import PlanMemo

if TYPE_CHECKING:  # pandas costs ~0.15 s to import: `show` in JSON never needs it
    import pandas as pd


@dataclass
class Figure:
    name: str
    item: str
    market: str
    label: str
    value: float
    low: float | None = None
    high: float | None = None

    def as_dict(self) -> dict:
        data = asdict(self)
        if self.low is None:
            del data["low"], data["high"]
        return data


@dataclass
class Breakdown:
    plan: str
    currency: str
    markets: list[str]
    figures: list[Figure]
    source: Plan = field(repr=False)  # for the details, computed when asked (`check` never asks)

    @cached_property
    def details(self) -> list[dict[str, Any]]:
        """A row per market and workload: hours, compute, storage..."""
        return workload_details(self.source)

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "markets": self.markets,
                "figures": [f.as_dict() for f in self.figures], **self.physics_json(), **self.ownership_json(),
                **self.gap_json()}

    def gap_json(self) -> dict:
        """`gap` (base case): the cheapest market, and per market the gap to it by category and in all, which
        is what the cheapest saves against it; absent from a plan of one market."""
        values = {f.name: f.value for f in self.figures}
        if len(self.markets) < 2:
            return {}
        totals = {m: values[figure_name(TOTAL.id, m)] for m in self.markets}
        cheapest = next(m for m, total in totals.items() if total <= min(totals.values()))
        by_market = {m: {c.id: values[figure_name(c.line.id, m)] for c in gap.CATEGORIES} for m in self.markets}
        return {"gap": {"cheapest": cheapest, "categories": [c.id for c in gap.CATEGORIES],
                        "by_market": {m: parts | {"total": totals[m] - totals[cheapest]}
                                      for m, parts in by_market.items()}}}

    def ownership_json(self) -> dict:
        """`ownership`, one entry per owned market (`ownership`); absent from a plan without one."""
        found = ownership(self.source)
        return {"ownership": found} if found else {}

    def physics_json(self) -> dict:
        """`workloads` (hours, days, MFU per workload and market), `warnings` and `notes` (what `--strict` lets be:
        an MFU taken from the evidence, one in the top quarter of published runs), beside `figures`; with a
        `serving` section, `serving` (per market: KV cache, memory, GPUs per replica, throughput, cost per
        million tokens)."""
        serving = serving_figures(self.source)
        return {"workloads": [row.as_dict() for row in plan_physics(self.source)],
                "warnings": [found.as_dict() for found in plan_sanity(self.source)],
                "notes": [found.as_dict() for found in plan_notes(self.source)]} | (
                    {"serving": serving} if serving else {})

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([f.as_dict() for f in self.figures])

    def details_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.details)

    def value(self, name: str) -> float:
        return next(f.value for f in self.figures if f.name == name)


def at_end(breakdown: Breakdown, end: str) -> Breakdown:
    """The breakdown with each figure's `value` its value in the plan scenario `end` (`base`, `low`, `high`)."""
    if end == "base":
        return breakdown
    figures = [dataclasses.replace(f, value=f.value if getattr(f, end) is None else getattr(f, end))
               for f in breakdown.figures]
    return dataclasses.replace(breakdown, figures=figures)


def figure_name(item: str, market: str) -> str:
    """A figure's defined name in the workbook and its `name` in `show`'s JSON."""
    return f"{item}_{market}"


def market_view(plan: Plan, market_id: str, scenario: str) -> MarketView:
    resolved = Resolved(plan, scenario)
    return MarketView(resolved, next(m for m in resolved.markets if m.id == market_id), scenario,
                      months=_months(plan), buying=gpu_hours_bought)


_months: PerPlan[int] = PerPlan(month_count)  # a view per market and scenario: ~50 a breakdown, ~4 ms each


def market_lines(plan: Plan, market_id: str, scenario: str) -> dict[str, float]:
    """Every line of one market in one scenario, in report order, the total after the lines it adds up."""
    return _market_lines(plan, market_id, scenario)[0]


def _market_lines(plan: Plan, market_id: str, scenario: str) -> tuple[dict[str, float], dict[str, Any]]:
    """`market_lines`, and the market's amounts by category of the gap to the cheapest (`gap.parts`)."""
    view = market_view(plan, market_id, scenario)
    for item in LINE_ITEMS:
        view.lines.update(item.reference(view))
    order = lines(plan)
    development = [line.id for line in order if line.in_total]
    out = {line_id: view.lines[line_id] for line_id in development}
    out[TOTAL.id] = sum(out.values())
    out.update({line.id: view.lines[line.id] for line in order if not line.in_total})
    return out, gap.parts(view, development)


def scenario_lines(plan: Plan, scenario: str) -> dict[str, dict[str, float]]:
    """Market -> its lines in one scenario, then the gap to the cheapest by category (`gap_<category>`), computed
    apart from the lines: the categories add up to the market's total less the cheapest's."""
    found = {m.id: _market_lines(plan, m.id, scenario) for m in plan.markets}
    by_gap = gap.gaps({m: parts for m, (_, parts) in found.items()},
                      {m: figures[TOTAL.id] for m, (figures, _) in found.items()})
    return {m: figures | {f"{gap.PREFIX}{k}": v for k, v in by_gap.get(m, {}).items()}
            for m, (figures, _) in found.items()}


def workload_details(plan: Plan) -> list[dict[str, Any]]:
    """The base case per market and workload: the columns each line item reports of a workload."""
    rows = []
    for market in plan.markets:
        view = market_view(plan, market.id, "base")
        for workload in view.plan.workloads:
            row = {"market": market.id, "workload": workload.id}
            for item in LINE_ITEMS:
                if item.workload_detail is not None:
                    row.update(item.workload_detail(view, workload))
            rows.append(row)
    return rows


def compute_breakdown(plan: Plan) -> Breakdown:
    """Every figure of every market, with low/high where the plan has ranges.

    Worked out once per plan content (`workbook.memo`): `diff PLAN BOOK` reads a plan file and a book of one
    content, and `check` the book's current inputs, which the Sensitivity's base case (audited) ranks too;
    ~0.15 s each on a 100-workload portfolio. Each caller gets figures of its own, and its plan as the source.
    """
    name, currency, markets, figures = _memo()(plan)
    return Breakdown(name, currency, list(markets), [dataclasses.replace(f) for f in figures], plan)


def _breakdown(plan: Plan) -> Breakdown:
    labels = {line.id: line.label for line in lines(plan) + list(gap.LINES)} | {TOTAL.id: TOTAL.label}
    figures = []
    scenarios = {s: scenario_lines(plan, s) for s in SCENARIOS}
    for market in plan.markets:
        by_scenario = {s: scenarios[s][market.id] for s in SCENARIOS}
        for item, value in by_scenario["base"].items():
            low, high = by_scenario["low"][item], by_scenario["high"][item]
            ranged = (low, high) != (value, value)
            figures.append(Figure(figure_name(item, market.id), item, market.id, labels[item], value,
                                  low if ranged else None, high if ranged else None))
    return Breakdown(plan.name, plan.currency, [m.id for m in plan.markets], figures, plan)


def _parts(plan: Plan) -> tuple[str, str, list[str], list[Figure]]:
    """A breakdown but its source: the memo holds no plan (it keeps a result while the plan lives)."""
    found = _breakdown(plan)
    return found.plan, found.currency, found.markets, found.figures


def _memo() -> PlanMemo[tuple[str, str, list[str], list[Figure]]]:
    """The memo of the registry in force: a plan's content gives its figures under one set of line items
    (a test registers another, as a plugin would at start-up, and the same plan's figures change)."""
    held = _MEMOS.get(id(LINE_ITEMS))
    if held is None or held[0] is not LINE_ITEMS:
        held = _MEMOS[id(LINE_ITEMS)] = (LINE_ITEMS, PlanMemo(_parts))
    return held[1]


_MEMOS: dict[int, tuple[Any, PlanMemo[tuple[str, str, list[str], list[Figure]]]]] = {}  # id(registry) -> it, memo


@dataclass
class MonthlyRow:
    market: str
    item: str
    label: str
    values: list[float]
    total: float      # the line item's figure; its months add up to it (up to floating-point rounding)

    def as_dict(self) -> dict:
        return {"market": self.market, "item": self.item, "label": self.label, "values": self.values,
                "total": self.total}


@dataclass
class MonthlyBreakdown:
    """The development cost month by month (base case): a row per line item and market, the total last."""

    plan: str
    currency: str
    markets: list[str]
    months: list[str]
    rows: list[MonthlyRow]
    view: str = "expense"   # `cash`: an owned cluster's purchase in its month instead of its depreciation

    def cumulative(self, market: str) -> list[float]:
        total = next(r for r in self.rows if r.market == market and r.item == TOTAL.id)
        running, out = 0.0, []
        for value in total.values:
            running += value
            out.append(running)
        return out

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "markets": self.markets, "months": self.months,
                "view": self.view, "rows": [r.as_dict() for r in self.rows],
                "cumulative": [{"market": m, "values": self.cumulative(m)} for m in self.markets]}


def market_months(plan: Plan, market_id: str, scenario: str = "base", cash: bool = False) -> dict[str, list[float]]:
    """Every line in the total of one market, month by month, and the total; each line sums to its figure.
    `cash`: an owned cluster's purchase in its month (`owned_purchase`) instead of its depreciation."""
    view = market_view(plan, market_id, scenario)
    for item in LINE_ITEMS:
        view.lines.update(item.reference(view))
    for item in LINE_ITEMS:
        if item.monthly is not None:
            view.monthly.update(item.monthly(view))
    development = [line.id for line in lines(plan) if line.in_total]
    out = {line_id: view.monthly[line_id] for line_id in development}
    if cash and "owned_depreciation" in out:
        out = {("owned_purchase" if k == "owned_depreciation" else k):
               (purchase_cash(view) if k == "owned_depreciation" else v) for k, v in out.items()}
    out[TOTAL.id] = [sum(month) for month in zip(*out.values(), strict=True)] if out else [0.0] * view.months
    return out


def compute_monthly(plan: Plan, scenario: str = "base", view: str = "expense",
                    breakdown: Breakdown | None = None) -> MonthlyBreakdown:
    """The months of every line: the expense view (the total development cost's), or the `cash` view (an owned
    cluster's purchase in its month instead of its depreciation; the total then is the cash spent).

    `breakdown`, the plan's figures in `scenario` where the caller has them (`check`), gives each row's
    figure instead of running every line item of every market again."""
    cash = view == "cash"
    labels = {line.id: line.label for line in lines(plan)} | {TOTAL.id: TOTAL.label,
                                                               "owned_purchase": "Owned: purchase (cash)"}
    known = None if breakdown is None else {f.name: f.value for f in breakdown.figures}
    rows = []
    for market in plan.markets:
        if cash:  # each row's total is its months' sum
            figures = {}
        elif known is None:
            figures = market_lines(plan, market.id, scenario)
        else:
            figures = {item: known[name] for item in labels if (name := figure_name(item, market.id)) in known}
        rows += [MonthlyRow(market.id, item, labels[item], values, sum(values) if cash else figures[item])
                 for item, values in market_months(plan, market.id, scenario, cash).items()]
    return MonthlyBreakdown(plan.name, plan.currency, [m.id for m in plan.markets],
                            month_labels(plan.start, month_count(plan)), rows, view)


# --- own or rent: each owned cluster's answers (`show`'s `ownership` list) ---------------------

def rented_prices(plan: Any, gpu: str) -> dict[str, float]:
    """Market id -> its price per GPU-hour of `gpu`, of the markets renting it at a price of their own."""
    return {m.id: m.gpu_prices[gpu] for m in plan.markets
            if kind_of(m).priced and m.owned is None and gpu in m.gpu_prices}


def ownership(plan: Plan, scenario: str = "base") -> list[dict[str, Any]]:
    """Per owned market, seen as its own column: the purchase, the expense of the plan's months by part, the book
    value at the plan's end, the cost per delivered GPU-hour, this plan's utilization, and per rented market
    pricing its GPU the break-even utilization (None where no load makes owning cheaper there)."""
    out = []
    for market in plan.markets:
        if getattr(market, "owned", None) is None:  # the full model has it; the core does not
            continue
        view = market_view(plan, market.id, scenario)
        owner = next(m for m in view.plan.markets if m.id == market.id)
        c = cluster(view, owner)
        markets = {m.id: m for m in view.plan.markets}
        entry: dict[str, Any] = {"market": market.id, "purchase": c.purchase}
        entry |= {part: sum(c.months[part]) for part in PARTS}
        entry |= {"book_value_at_end": c.book_value_at_end, "cost_per_gpu_hour": cost_per_gpu_hour(c),
                  "utilization": utilization(c),
                  "breakeven_utilization": {mid: breakeven(c, price, price_index(view, markets[mid])) for mid, price
                                            in rented_prices(view.plan, owner.owned.gpu).items()}}
        out.append(entry)
    return out
