"""Input names by plan key path: formulas refer to inputs by the names `inputs.input_cells` gives them."""

from __future__ import annotations

from ..plan.inputs import input_cells
from ..plan.model import Market, Plan, Workload
from . import style as st
from .scenario import used_name


class Inputs:
    def __init__(self, plan: Plan):
        self.cells = input_cells(plan)
        self.by_path = {cell.path: used_name(cell) for cell in self.cells}  # a range: its used value
        self._values = {cell.path: (cell.num.low, cell.num.base, cell.num.high) for cell in self.cells}
        self._market_index = {m.id: i for i, m in enumerate(plan.markets)}
        self._workload_index = {w.id: i for i, w in enumerate(plan.workloads)}

    def __getitem__(self, path: tuple) -> str:
        return self.by_path[path]

    def market(self, plan: Plan, market: Market, *key) -> str:
        return self.by_path[("markets", self._market_index[market.id]) + key]

    def price(self, market_paying: Market, gpu: str) -> str:
        """The input a formula reads for the price per GPU-hour of `gpu` on a market with prices (its kind says)."""
        return market_paying.market_kind.gpu_price_name(self, market_paying, gpu)

    def runs(self, plan: Plan, workload: Workload, market: Market) -> str:
        """This market's runs of a workload: its own count where its kind sets one (a hybrid's)."""
        key = market.market_kind.runs_key(workload, market)
        if key is not None:
            return self.market(plan, market, *key)
        return self.by_path[("workloads", self._workload_index[workload.id], "runs")]

    def count_format(self, *paths: tuple, per: tuple | None = None) -> str:
        """The format of a calculation row of counts read from the inputs at `paths` (added, or one of them):
        whole (`600`, `2`) where every value they take is whole, else two decimals (`2.25`). With `per`, the row
        is paths[0] / per (saves = steps / save every): whole where every such quotient is."""
        values = [v for path in paths if path in self._values for v in self._values[path]]
        if per is not None and per in self._values and values:
            values = [v / d for v in values for d in self._values[per] if d]
        return st.count_of(values)

    def runs_paths(self, plan: Plan, workload: Workload) -> list[tuple]:
        """Every input a workload's runs come from: its own, and each market's where its kind sets one."""
        paths = [("workloads", self._workload_index[workload.id], "runs")]
        for market in plan.markets:
            key = market.market_kind.runs_key(workload, market)
            if key is not None:
                paths.append(("markets", self._market_index[market.id]) + key)
        return paths
