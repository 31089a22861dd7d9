"""The reference model of the Variance sheet: plan (the reference's month by month) against the bills.

Written apart from the sheet's formulas (`sheets.py`); `check` holds every
Variance figure against this, and `budgetbook variance` prints it.

For each market the bills map to and each development line (and the total), month n
of the plan's months is *billed* when n <= the months billed (up to the last month any
bill covers). Then: plan to date = the plan of the billed months; variance = actual -
plan to date; variance % = variance / plan to date (0 when nothing was planned);
forecast at completion = actuals of the billed months + the plan of the others.

The blocks are the sheet's (`sheets.variance_blocks`): a market's GPU spend (its GPU
lines added, plan and bills) first, the lines a bill cannot carry on their own as
plan only (plan, plan to date, cumulative plan), the total last. Only blocks a bill
can be held against are ever "over".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from ..lineitems.compute import workload_compute
from ..plan.model import Plan
from ..reference import Breakdown, MonthlyBreakdown, at_end, compute_breakdown, compute_monthly, market_view
from .baseline import versions_named
from .model import UNMAPPED, Actuals
from .sheets import MAX_HOURS_WORKLOADS, plan_months, variance_blocks
from .threshold import DEFAULT_THRESHOLD_PCT

HALF_CENT = 0.005  # an overspend below this is floating-point noise of the month sums, not money


@dataclass
class VarianceLine:
    market: str
    item: str
    label: str
    plan: list[float]
    actual: list[float]
    billed: int
    plan_only: bool = False  # no bill can be held against it on its own: plan, plan to date and cumulative plan

    def _billed(self, values: list[float]) -> list[float]:
        return [v if n < self.billed else 0.0 for n, v in enumerate(values)]

    @property
    def plan_to_date(self) -> list[float]:
        return self._billed(self.plan)

    @property
    def variance(self) -> list[float]:
        return [a - p for a, p in zip(self.actual, self.plan_to_date, strict=True)]

    @property
    def forecast(self) -> list[float]:
        return [a if n < self.billed else p for n, (a, p) in enumerate(zip(self.actual, self.plan, strict=True))]

    def totals(self) -> dict[str, float]:
        if self.plan_only:
            return {"plan": sum(self.plan), "plan_to_date": sum(self.plan_to_date)}
        plan_to_date, variance = sum(self.plan_to_date), sum(self.variance)
        return {"plan": sum(self.plan), "plan_to_date": plan_to_date, "actual": sum(self.actual),
                "variance": variance, "variance_pct": variance / plan_to_date if plan_to_date else 0.0,
                "forecast": sum(self.forecast), "at_completion": sum(self.forecast) - sum(self.plan)}

    def named(self) -> dict[str, float]:
        """The Variance sheet's defined names of this line, with the values the sheet must hold."""
        base = f"var_{self.item}_{self.market}"
        out = {f"{base}_{key}": value for key, value in self.totals().items()}
        cum_plan = cum_actual = 0.0
        for n, (p, ptd, a, v, f) in enumerate(zip(self.plan, self.plan_to_date, self.actual, self.variance,
                                                  self.forecast, strict=True), 1):
            cum_plan, cum_actual = cum_plan + p, cum_actual + a
            if self.plan_only:
                out |= {f"{base}_plan_m{n}": p, f"{base}_plan_to_date_m{n}": ptd, f"{base}_cum_plan_m{n}": cum_plan}
                continue
            out |= {f"{base}_plan_m{n}": p, f"{base}_plan_to_date_m{n}": ptd, f"{base}_actual_m{n}": a,
                    f"{base}_variance_m{n}": v, f"{base}_variance_pct_m{n}": v / ptd if ptd else 0.0,
                    f"{base}_cum_plan_m{n}": cum_plan, f"{base}_cum_actual_m{n}": cum_actual,
                    f"{base}_forecast_m{n}": f}
        return out

    def as_json(self) -> dict:
        if self.plan_only:
            return {"market": self.market, "item": self.item, "label": self.label, "plan_only": True,
                    **self.totals(), "months": {"plan": self.plan}}
        return {"market": self.market, "item": self.item, "label": self.label, "plan_only": False,
                **self.totals(), "months": {"plan": self.plan, "actual": self.actual, "variance": self.variance}}


@dataclass
class VarianceReport:
    plan: str
    currency: str
    months: list[str]
    billed: int
    lines: list[VarianceLine] = field(default_factory=list)
    prices: dict[str, tuple[list[float], float]] = field(default_factory=dict)  # market -> per month, overall
    planned_price: dict[str, float] = field(default_factory=dict)              # market -> compute / allocated hours
    hours: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)  # market -> planned, billed
    unmapped: list[tuple[str, float, int]] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # market id -> its label, as the tables show it
    versions: dict[str, float] = field(default_factory=dict)  # the versions rows' names (`ledger.baseline`)

    def label(self, market: str) -> str:
        """The market as a table names it: its label, its id where it has none."""
        return self.labels.get(market) or market

    def named(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for line in self.lines:
            out |= line.named()
        for market, (monthly, overall) in self.prices.items():
            out |= {f"var_price_gpuh_{market}_m{n}": v for n, v in enumerate(monthly, 1)}
            out[f"var_price_gpuh_{market}"] = overall
            out[f"var_price_plan_{market}"] = self.planned_price[market]
        for market, (planned, billed) in self.hours.items():
            to_date = [v if n < self.billed else 0.0 for n, v in enumerate(planned)]
            for key, values in (("gpuh_plan", planned), ("gpuh_plan_to_date", to_date), ("gpuh_actual", billed)):
                out |= {f"var_{key}_{market}_m{n}": v for n, v in enumerate(values, 1)}
                out[f"var_{key}_{market}"] = sum(values)
            out[f"var_utilisation_{market}"] = sum(to_date) / sum(billed) if sum(billed) > 0 else 0.0
        return out | self.versions

    def over(self, threshold_pct: float) -> list[VarianceLine]:
        """The lines (not the totals) over budget to date by more than `threshold_pct` percent of their plan to
        date; a line billed with nothing planned is over whenever it was billed anything."""
        out = []
        for line in self.lines:
            if line.item == "total" or line.plan_only:
                continue
            t = line.totals()
            if t["variance"] > HALF_CENT and (t["plan_to_date"] <= 0 or t["variance_pct"] * 100 > threshold_pct):
                out.append(line)
        return out

    def as_json(self, threshold_pct: float | None = None) -> dict:
        data = {"plan": self.plan, "currency": self.currency, "months": self.months,
                "months_billed": self.billed, "lines": [line.as_json() for line in self.lines],
                "price_per_gpu_hour": {m: overall for m, (_, overall) in self.prices.items()},
                "planned_price_per_gpu_hour": self.planned_price,
                "gpu_hours": {m: {"planned": sum(p), "planned_to_date": sum(p[:self.billed]), "billed": sum(b)}
                              for m, (p, b) in self.hours.items()},
                "unmapped": [{"what": w, "amount": a, "rows": r} for w, a, r in self.unmapped],
                "unmapped_total": sum(a for _, a, _ in self.unmapped)}
        if threshold_pct is not None:
            data["threshold_pct"] = threshold_pct
            data["over"] = [{"market": line.market, "item": line.item} for line in self.over(threshold_pct)]
        return data


def compute_variance(plan: Plan, actuals: Actuals, scenario: str = "base", breakdown: Breakdown | None = None,
                     monthly: MonthlyBreakdown | None = None) -> VarianceReport:
    """The Variance sheet's figures, the plan taken in a plan scenario (`base`, or `low`/`high`: the workbook's
    scenario switch set to best/worst, which moves the Cash flow the sheet reads). `breakdown` and `monthly`,
    the plan's in that scenario (`check` has them already), spare computing them again."""

    months = plan_months(plan)
    monthly = monthly or compute_monthly(plan, scenario)
    planned = {(r.market, r.item): r.values for r in monthly.rows}
    cells, hours = actuals.by_cell(), actuals.gpu_hours()
    billed = actuals.closed_months(months)
    report = VarianceReport(plan.name, plan.currency, months, billed,
                            labels={m.id: m.label or m.id for m in plan.markets})
    figures = {(f.market, f.item): f.value for f in (breakdown or at_end(compute_breakdown(plan), scenario)).figures}
    planned_compute = {m: figures[(m, "compute")] for m in actuals.markets()}
    allocated = {m: _allocated(plan, m, scenario) for m in actuals.markets()}
    report.unmapped = [(w, float(a), r) for w, a, r in actuals.unmapped()]
    blocks = variance_blocks(plan)
    lines = [part for block in blocks[:-1] if len(block.parts) == 1 for part in block.parts]
    for market in actuals.markets():
        by_item = {item: [float(cells.get((m, market, item), Decimal(0))) for m in months] for item in lines}
        by_item["total"] = [sum(by_item[i][n] for i in lines) for n in range(len(months))]
        plan_of = {item: _padded(planned.get((market, item), []), len(months)) for item in lines}
        plan_of["total"] = _padded(planned.get((market, "total"), []), len(months))
        for block in blocks:
            actual = [sum(by_item[p][n] for p in block.parts) for n in range(len(months))]
            plan_values = [sum(plan_of[p][n] for p in block.parts) for n in range(len(months))]
            report.lines.append(VarianceLine(market, block.id, block.label, plan_values, actual, billed,
                                             plan_only=block.plan_only))
        gpuh = [float(hours.get((m, market), Decimal(0))) for m in months]
        compute = by_item.get("compute", [0.0] * len(months))
        monthly_price = [c / h if h > 0 else 0.0 for c, h in zip(compute, gpuh, strict=True)]
        report.prices[market] = (monthly_price, sum(compute) / sum(gpuh) if sum(gpuh) > 0 else 0.0)
        hours_planned = planned_hours(plan, market, scenario)
        report.planned_price[market] = planned_compute[market] / sum(allocated[market]) \
            if sum(allocated[market]) else 0.0
        if len(plan.workloads) <= MAX_HOURS_WORKLOADS:
            report.hours[market] = (hours_planned, gpuh)
        mine = {line.item: line for line in report.lines if line.market == market}
        report.versions |= versions_named(actuals.baseline, market, months, billed, mine["total"],
                                          mine.get("gpu_spend"), report.hours.get(market), report.prices[market][1])
    return report


def _padded(values: list[float], months: int) -> list[float]:
    return list(values) + [0.0] * (months - len(values))


def _allocated(plan: Plan, market: str, scenario: str) -> list[float]:
    """Each workload's allocated GPU-hours (all runs) on `market`, in `scenario`."""
    view = market_view(plan, market, scenario)
    return [workload_compute(view, w).allocated_hours for w in view.plan.workloads]


def planned_hours(plan: Plan, market: str, scenario: str) -> list[float]:
    """GPU-hours paid month by month: the hours every line item buys (as each declares them), as it buys them."""
    view = market_view(plan, market, scenario)
    months = [0.0] * view.months
    for bought in view.gpu_hours():
        for n, value in enumerate(view.spread(bought.hours, bought.window)):
            months[n] += value
    return months


__all__ = ["DEFAULT_THRESHOLD_PCT", "UNMAPPED", "VarianceLine", "VarianceReport", "compute_variance"]
