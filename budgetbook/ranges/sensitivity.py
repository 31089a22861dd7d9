"""`sensitivity`: each ranged input alone at its low and at its high, the others at base; sorted by swing.

One vectorised pass of the reference model (`engine.totals`) over 2 x inputs columns: column 2k has
input k at its low, column 2k+1 at its high.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..errors import UsageError
from ..plan.model import Plan, suggest
from ..reference import Breakdown, compute_breakdown, figure_name
from .engine import ranged_inputs, totals


@dataclass
class Swing:
    input: str          # the plan key path (`workloads[0].mfu`)
    name: str           # its defined name in the workbook
    label: str
    low: float          # the input's low and high values
    high: float
    low_total: float    # the market's total development cost with this input alone at its low
    high_total: float
    swing: float        # |high_total - low_total|


@dataclass
class Sensitivity:
    plan: str
    currency: str
    market: str
    base: float
    inputs: list[Swing]
    market_label: str = ""  # as the tables show it (the id where the market has no label)

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "market": self.market, "base": self.base,
                "inputs": [{k: v for k, v in asdict(s).items()} for s in self.inputs]}


def default_market(plan: Plan, breakdown: Breakdown | None = None) -> str:
    """The market a sensitivity reads by default: the cheapest total in the base case (the decision);
    `breakdown`, the plan's, where the caller has it (the reference model runs every line item)."""
    breakdown = breakdown or compute_breakdown(plan)
    return min(plan.markets, key=lambda m: breakdown.value(figure_name("total", m.id))).id


def all_sensitivities(plan: Plan, breakdown: Breakdown | None = None) -> dict[str, Sensitivity]:
    """The sensitivity of every market, from one pass of the engine (`breakdown`: the plan's, if known)."""
    cells = ranged_inputs(plan)
    count = max(1, 2 * len(cells))
    columns = {}
    for k, cell in enumerate(cells):
        column = np.full(count, cell.num.base)
        column[2 * k], column[2 * k + 1] = cell.num.low, cell.num.high
        columns[id(cell.num)] = column
    by_market = totals(plan, columns, count)
    breakdown = breakdown or compute_breakdown(plan)
    out = {}
    for market in plan.markets:
        values = by_market[market.id]
        swings = [Swing(cell.key_path, cell.name, cell.label, cell.num.low, cell.num.high,
                        float(values[2 * k]), float(values[2 * k + 1]),
                        abs(float(values[2 * k + 1]) - float(values[2 * k])))
                  for k, cell in enumerate(cells)]
        swings.sort(key=lambda s: -s.swing)  # stable: equal swings keep the Inputs sheet's order
        out[market.id] = Sensitivity(plan.name, plan.currency, market.id,
                                     breakdown.value(figure_name("total", market.id)), swings,
                                     market.label or market.id)
    return out


def sensitivity(plan: Plan, market: str | None = None) -> Sensitivity:
    ids = [m.id for m in plan.markets]
    if market is not None and market not in ids:
        raise UsageError(f"`--market {market}`: the plan has no such market (it has {', '.join(ids)})"
                         f"{suggest(market, ids)}")
    breakdown = compute_breakdown(plan)  # once: the base totals and the default market read it
    return all_sensitivities(plan, breakdown)[market or default_market(plan, breakdown)]
