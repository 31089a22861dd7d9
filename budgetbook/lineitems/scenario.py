"""A plan seen in one scenario: every number a plain float, so a reference rule reads like arithmetic.

`Resolved(workload, "low").mfu` is the optimistic MFU as a float; nested
sections resolve the same way. The scenario is chosen once, here, and the
line items' reference rules never see a range.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..plan.numbers import Num
from ..plan.timing import spread
from .gpu_hours import GpuHours


def resolve(value: Any, scenario: str) -> Any:
    if isinstance(value, Num):
        return value.at(scenario)
    if isinstance(value, BaseModel):
        return Resolved(value, scenario)
    if isinstance(value, list):
        return [resolve(v, scenario) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, scenario) for k, v in value.items()}
    return value


class Resolved:
    """A read-only view of a plan model in which every `Num` is its value in one scenario."""

    __slots__ = ("_model", "_scenario", "_seen")

    def __init__(self, model: BaseModel, scenario: str):
        self._model = model
        self._scenario = scenario
        self._seen: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        seen = self._seen
        if name not in seen:
            seen[name] = resolve(getattr(self._model, name), self._scenario)
        return seen[name]

    def __repr__(self) -> str:
        return f"Resolved({type(self._model).__name__}, {self._scenario!r})"


@dataclass
class MarketView:
    """What a reference rule sees: the plan and one market in one scenario, and the lines computed so far."""

    plan: Any                       # Resolved plan
    market: Any                     # Resolved market
    scenario: str
    lines: dict[str, float] = field(default_factory=dict)
    months: int = 0                 # how many months the cash flow spans
    monthly: dict[str, list[float]] = field(default_factory=dict)   # line id -> its months, computed so far
    # every line item's GPU-hours on this market (`lineitems.registry.gpu_hours_bought`), set by who builds it
    buying: Callable[[MarketView], list[GpuHours]] | None = None
    # what a rule works out once per view and several line items read (`compute.workload_compute`: compute,
    # failed runs, reliability, the stages, the GPU-hours bought and the gap each ask for it)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def gpu_hours(self) -> list[GpuHours]:
        """The GPU-hours every line item buys under this market, as each declares them."""
        if self.buying is None:
            raise LookupError("a MarketView built without `buying` cannot tell the GPU-hours the items buy")
        return self.buying(self)

    def spread(self, amount: float, window: tuple[float, float]) -> list[float]:
        return spread(amount, window[0], window[1], self.months)
