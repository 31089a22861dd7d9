"""Input names by plan key path: formulas refer to inputs by the names `inputs.input_cells` gives them."""

from __future__ import annotations

from ..plan.inputs import input_cells
from ..plan.model import Market, Plan, Workload
from .scenario import used_name


class Inputs:
    def __init__(self, plan: Plan):
        self.cells = input_cells(plan)
        self.by_path = {cell.path: used_name(cell) for cell in self.cells}  # a range: its used value
        self._market_index = {m.id: i for i, m in enumerate(plan.markets)}
        self._workload_index = {w.id: i for i, w in enumerate(plan.workloads)}

    def __getitem__(self, path: tuple) -> str:
        return self.by_path[path]

    def market(self, plan: Plan, market: Market, *key) -> str:
        return self.by_path[("markets", self._market_index[market.id]) + key]

    def price(self, market_paying: Market, gpu: str) -> str:
        """The input a formula reads for the price per GPU-hour of `gpu` on a market with prices (its kind says)."""
        return market_paying.kind.gpu_price_name(self, market_paying, gpu)

    def runs(self, plan: Plan, workload: Workload, market: Market) -> str:
        """This market's runs of a workload: its own count where its kind sets one (a hybrid's)."""
        key = market.kind.runs_key(workload, market)
        if key is not None:
            return self.market(plan, market, *key)
        return self.by_path[("workloads", self._workload_index[workload.id], "runs")]
