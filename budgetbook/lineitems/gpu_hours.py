"""The GPU-hours a line item buys, as it declares them both ways (`LineItem.gpu_hours`, `gpu_hours_cells`).

Their own module, below `base` and `scenario`: a market view carries the function that lists them
(`MarketView.buying`), and the item interface names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GpuHours:
    """GPU-hours an item buys for one workload on one priced market, in one scenario (the reference's side)."""

    workload: str                   # the workload they are for
    gpu: str
    market: str                     # the priced market that sells them (whose price the item pays)
    hours: Any                      # all runs: a float, or simulate's array
    window: tuple[Any, Any]         # (start, months) they are spread evenly over


@dataclass(frozen=True)
class GpuHoursCells:
    """The same hours in the workbook, in one market's column: a formula term over defined names."""

    workload: str
    gpu: str
    market: str                     # the priced market that sells them, for this column's market
    term: str                       # `cmp_w_alloc_aws*fail_w_waste_aws`: names and operators, no placeholder
    flag: str                       # the Cash flow timing flag they are spread by (`run_<workload>`)
