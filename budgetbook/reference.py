"""The reference model: the accounting of DESIGN.md section 3 as plain Python.

This is the executable specification that `check` holds a workbook against. It
is written apart from the workbook's formulas on purpose: the two agree over
thousands of random plans, or one of them has a bug. Read it as a worked
example, one workload on one market at a time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd

from .plan.numbers import SCENARIOS
from .plan.model import Market, Plan, Workload

SECONDS_PER_HOUR = 3600
HOURS_PER_DAY = 24
FLOP_PER_TFLOP = 1e12
BYTES_PER_GB = 1e9
TOKENS_PER_MILLION = 1e6

ITEM_LABELS = {
    "compute": "Compute",
    "failed_runs": "Failed runs",
    "storage_egress": "Storage & egress",
    "people": "People",
    "total": "Total development cost",
    "final_run": "Final-run compute",
    "serving": "Serving",
    "serving_api": "Serving via API (buy)",
}


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
    details: pd.DataFrame = field(repr=False)

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "markets": self.markets,
                "figures": [f.as_dict() for f in self.figures]}

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([f.as_dict() for f in self.figures])

    def value(self, name: str) -> float:
        return next(f.value for f in self.figures if f.name == name)


def figure_name(item: str, market: str) -> str:
    """A figure's defined name in the workbook and its `name` in `show`'s JSON."""
    return f"{item}_{market}"


# --- one workload on one market ---------------------------------------------------------

def hours_per_run(plan: Plan, workload: Workload, s: str) -> tuple[float | None, float]:
    """(ideal GPU-hours, allocated GPU-hours) of one run; ideal is None where hours come allocated."""
    if workload.cluster is not None:
        return None, workload.cluster.gpus.at(s) * workload.cluster.days.at(s) * HOURS_PER_DAY
    if workload.allocated_gpu_hours is not None:
        return None, workload.allocated_gpu_hours.at(s)
    if workload.ideal_gpu_hours is not None:
        ideal = workload.ideal_gpu_hours.at(s)
    else:
        flops = workload.flops
        total_flop = flops.flops_per_param_token.at(s) * flops.params.at(s) * flops.tokens.at(s)
        ideal = total_flop / (workload.peak.at(s) * FLOP_PER_TFLOP) / SECONDS_PER_HOUR
    if workload.utilization is not None:
        return ideal, ideal * workload.utilization.at(s)
    return ideal, ideal / workload.mfu.at(s)


def checkpoint_volume_gb(workload: Workload, runs: float, s: str) -> float:
    ckpt = workload.checkpoints
    if ckpt is None:
        return 0.0
    if ckpt.size_gb is not None:
        save_gb = ckpt.size_gb.at(s)
    else:
        save_gb = ckpt.params.at(s) * ckpt.bytes_per_param.at(s) / BYTES_PER_GB
    saves = ckpt.saves.at(s) if ckpt.saves is not None else ckpt.steps.at(s) / ckpt.save_every_steps.at(s)
    return save_gb * saves * runs


def workload_costs(plan: Plan, workload: Workload, market: Market, s: str) -> dict:
    pays = plan.workload_market(workload, market)  # a hybrid pays the assigned market's prices
    runs = plan.workload_runs(workload, market).at(s)
    ideal, allocated = hours_per_run(plan, workload, s)
    allocated_hours = allocated * runs
    compute = allocated_hours * pays.gpu_prices[workload.gpu].at(s)
    volume_gb = checkpoint_volume_gb(workload, runs, s)
    ckpt = workload.checkpoints
    storage = volume_gb * ckpt.retention_months.at(s) * pays.storage_per_gb_month.at(s) if ckpt else 0.0
    egress = volume_gb * ckpt.moved_share.at(s) * pays.egress_per_gb.at(s) if ckpt else 0.0
    return {
        "market": market.id, "workload": workload.id, "pays": pays.id, "runs": runs,
        "ideal_hours": None if ideal is None else ideal * runs,
        "allocated_hours": allocated_hours, "compute": compute,
        "failed_runs": compute * workload.waste.at(s),
        "checkpoint_gb": volume_gb, "storage": storage, "egress": egress,
        "final_run": compute if workload.final_run else 0.0,
    }


# --- whole-market lines -----------------------------------------------------------------

def extra_engineering_days(plan: Plan, market: Market, s: str) -> float:
    if market.hybrid is None:
        return market.extra_engineering_days.at(s)
    used = dict.fromkeys(market.hybrid.assign.values())  # each market's overhead is paid once
    return sum(plan.market(m).extra_engineering_days.at(s) for m in used)


def people_cost(plan: Plan, market: Market, s: str) -> float:
    team = sum(r.count.at(s) * r.months.at(s) * r.monthly_cost.at(s) for r in plan.people.roles)
    return team + extra_engineering_days(plan, market, s) * plan.people.engineering_day_cost.at(s)


def serving_tokens(plan: Plan, s: str) -> float:
    serving = plan.serving
    if serving.tokens_per_month is not None:
        return serving.tokens_per_month.at(s)
    return serving.requests_per_month.at(s) * serving.tokens_per_request.at(s)


def serving_cost(plan: Plan, market: Market, s: str) -> float:
    serving = plan.serving
    gpu_hours_per_month = serving_tokens(plan, s) / serving.tokens_per_second_per_gpu.at(s) / SECONDS_PER_HOUR
    price = plan.serving_market(market).gpu_prices[serving.gpu].at(s)
    return gpu_hours_per_month * serving.months.at(s) * price


def serving_api_cost(plan: Plan, s: str) -> float:
    serving = plan.serving
    return serving_tokens(plan, s) * serving.months.at(s) / TOKENS_PER_MILLION * serving.api_price_per_million_tokens.at(s)


def market_lines(plan: Plan, market: Market, s: str) -> dict[str, float]:
    """Every line item of one market in one scenario, in the order they are reported."""
    rows = [workload_costs(plan, w, market, s) for w in plan.workloads]
    lines = {
        "compute": sum(r["compute"] for r in rows),
        "failed_runs": sum(r["failed_runs"] for r in rows),
        "storage_egress": sum(r["storage"] + r["egress"] for r in rows),
        "people": people_cost(plan, market, s),
    }
    for item in plan.items:
        lines[item.id] = item.cost.at(s)
    lines["total"] = sum(lines.values())
    # the other two magnitudes: beside the total, never inside it
    if any(w.final_run for w in plan.workloads):
        lines["final_run"] = sum(r["final_run"] for r in rows)
    if plan.serving is not None:
        lines["serving"] = serving_cost(plan, market, s)
        if plan.serving.api_price_per_million_tokens is not None:
            lines["serving_api"] = serving_api_cost(plan, s)
    return lines


def compute_breakdown(plan: Plan) -> Breakdown:
    """Every figure of every market, with low/high where the plan has ranges."""
    labels = ITEM_LABELS | {item.id: item.label or item.id.replace("_", " ").capitalize()
                            for item in plan.items}
    figures = []
    for market in plan.markets:
        by_scenario = {s: market_lines(plan, market, s) for s in SCENARIOS}
        for item, value in by_scenario["base"].items():
            low, high = by_scenario["low"][item], by_scenario["high"][item]
            ranged = (low, high) != (value, value)
            figures.append(Figure(figure_name(item, market.id), item, market.id, labels[item], value,
                                  low if ranged else None, high if ranged else None))
    details = pd.DataFrame([workload_costs(plan, w, m, "base") for m in plan.markets for w in plan.workloads])
    return Breakdown(plan.name, plan.currency, [m.id for m in plan.markets], figures, details)
