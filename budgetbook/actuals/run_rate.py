"""`reforecast --from-actuals`: the current inputs re-estimated from the run rate of the bills.

Two facts of the bills so far, both as the Variance sheet computes them (`ledger.variance`):

- the **price paid** per GPU-hour on each market billed GPU-hours (its billed compute / its billed
  GPU-hours), against the price planned (Procurement's average: planned compute / allocated hours):
  every GPU price of that market is scaled by paid / planned, its range with it (a commitment
  reserved there pays the market's price, so it follows);
- the **hours consumed**: the GPU-hours billed against the GPU-hours planned in the months billed,
  over every market billed (`ratio` = billed / planned to date): every workload's hours are scaled by
  it through the one input that sets them: `mfu` divided by it, `utilization`, `allocated_gpu_hours`
  or a cluster's `gpus` multiplied by it (its range with it).

The rest of the plan stays as it is. A re-estimate that leaves an input's bounds (an MFU above 1, a
utilization below 1) is refused naming the input: reforecast without `--from-actuals` and set it.
With no GPU-hours billed (or none planned in the months billed), nothing is re-estimated; the
reforecast says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import WorkbookError
from ..ledger.model import Actuals
from ..ledger.variance import compute_variance, planned_hours
from ..output.words import plural
from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan
from ..plan.numbers import Num
from ..planfile.loader import plan_from_text
from ..planfile.rewrite import rewrite_values

# a workload's hours input where its hours come allocated (the key path under the workload), and the power of
# the ratio it is scaled by (ideal hours: `utilization` x the ratio, `mfu` / it)
HOURS_INPUT = {"cluster": (("cluster", "gpus"), 1), "allocated_gpu_hours": (("allocated_gpu_hours",), 1)}


@dataclass
class RunRate:
    """What the bills say and what it changed: per market (paid, planned) per GPU-hour; GPU-hours (billed,
    planned to date); each input re-estimated (its key path -> (was, now), base values)."""
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    hours: tuple[float, float] = (0.0, 0.0)
    changed: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        billed, planned = self.hours
        return billed / planned if billed > 0 and planned > 0 else None

    def as_json(self) -> dict:
        return {"price_per_gpu_hour": {m: {"paid": p, "planned": q} for m, (p, q) in self.prices.items()},
                "gpu_hours": {"billed": self.hours[0], "planned_to_date": self.hours[1], "ratio": self.ratio},
                "inputs": {path: {"was": was, "now": now} for path, (was, now) in self.changed.items()}}

    def summary(self) -> str:
        if not self.changed:
            return "from the actuals: no GPU-hours billed (or none planned in the months billed), nothing re-estimated"
        prices = "; ".join(f"{m} paid {p:,.4f} a GPU-hour against {q:,.4f} planned"
                           for m, (p, q) in self.prices.items())
        billed, planned = self.hours
        hours = (f"{billed:,.0f} GPU-hours billed against {planned:,.0f} planned to date (x{self.ratio:.4f})"
                 if self.ratio is not None else "no GPU-hours to compare")
        return (f"from the actuals: {prices or 'no price paid'}; {hours}; "
                f"{plural(len(self.changed), 'input')} re-estimated")


def from_actuals(plan: Plan, text: str, actuals: Actuals, source: str) -> tuple[Plan, str, RunRate]:
    """`plan` (read from `text`) with its inputs re-estimated from `actuals`' run rate: (plan, its text, what)."""
    report = compute_variance(plan, actuals)
    cells = {cell.path: cell for cell in input_cells(plan)}
    out = RunRate()
    values: dict[tuple, Num] = {}
    index = {m.id: i for i, m in enumerate(plan.markets)}
    billed = planned = 0.0
    gpu_hours = actuals.gpu_hours()
    for market in actuals.markets():
        paid, priced = report.prices[market][1], report.planned_price[market]
        hours = planned_hours(plan, market, "base")
        used = sum(float(gpu_hours.get((month, market), 0)) for month in report.months)
        billed, planned = billed + used, planned + sum(hours[:report.billed])
        if paid <= 0 or priced <= 0:
            continue
        out.prices[market] = (paid, priced)
        for gpu in plan.markets[index[market]].gpu_prices:
            price: tuple = ("markets", index[market], "gpu_prices", gpu)
            if price in cells:  # every price is an input cell; a key that is not is left as it is
                values[price] = _scaled(cells[price], paid / priced, source)
    out.hours = (billed, planned)
    if out.ratio is not None:
        for i, workload in enumerate(plan.workloads):
            way = workload.hours_given
            if way in HOURS_INPUT:
                tail, power = HOURS_INPUT[way]
            else:  # ideal hours (stated, or from FLOPs) to allocated: x utilization, or / MFU
                tail, power = (("utilization",), 1) if workload.utilization is not None else (("mfu",), -1)
            hours_at: tuple = ("workloads", i, *tail)
            if hours_at in cells:
                values[hours_at] = _scaled(cells[hours_at], out.ratio ** power, source)
    out.changed = {_key(cells[p]): (cells[p].num.base, v.base) for p, v in values.items() if cells[p].num != v}
    if not values:
        return plan, text, out
    text = rewrite_values(text, plan, values)
    return plan_from_text(text, f"{source} (re-estimated from the actuals)"), text, out


def _scaled(cell: InputCell, factor: float, source: str) -> Num:
    num = cell.num
    scaled = Num(num.base * factor, num.low * factor, num.high * factor, num.ranged, num.lowers_cost)
    for end in ("low", "base", "high") if num.ranged else ("base",):
        value = getattr(scaled, end)
        if not cell.bounds.allows(value):
            raise WorkbookError(f"--from-actuals: {_key(cell)} ({cell.label}) would be {value:.6g} at its {end} "
                                f"({getattr(num, end):.6g} x {factor:.6g}, from the bills' run rate), out of range: "
                                f"must be {cell.bounds.describe()}; reforecast without --from-actuals and set it "
                                "by hand", source=source)
    return scaled


def _key(cell: InputCell) -> str:
    return cell.key_path
