"""Input names by plan key path: formulas refer to inputs by the names `inputs.input_cells` gives them."""

from __future__ import annotations

from ..plan.inputs import input_cells
from ..plan.model import Market, Plan, Workload


class Inputs:
    def __init__(self, plan: Plan):
        self.cells = input_cells(plan)
        self.by_path = {cell.path: cell.name for cell in self.cells}
        self._market_ids = [m.id for m in plan.markets]

    def __getitem__(self, path: tuple) -> str:
        return self.by_path[path]

    def market(self, plan: Plan, market: Market, *key) -> str:
        index = [m.id for m in plan.markets].index(market.id)
        return self.by_path[("markets", index) + key]

    def price(self, market_paying: Market, gpu: str) -> str:
        return next(name for path, name in self.by_path.items()
                    if path[0] == "markets" and path[2:] == ("gpu_prices", gpu)
                    and self._market_ids[path[1]] == market_paying.id)

    def runs(self, plan: Plan, workload: Workload, market: Market) -> str:
        """This market's runs of a workload: a hybrid's own count where it sets one."""
        if market.hybrid is not None and workload.id in market.hybrid.runs:
            return self.market(plan, market, "hybrid", "runs", workload.id)
        return self.by_path[("workloads", [w.id for w in plan.workloads].index(workload.id), "runs")]

