"""Which market's prices apply: a market pays its own; a hybrid assigns each workload to a market.

Both implementations (the reference rules and the sheet builders) follow these
rules; they decide *where* a price comes from, not any arithmetic. They work on
a plan model and on a plan seen in one scenario alike.
"""

from __future__ import annotations

from typing import Any


def _by_id(plan: Any, market_id: str) -> Any:
    return next(m for m in plan.markets if m.id == market_id)


def paying_market(plan: Any, workload: Any, market: Any) -> Any:
    """The market whose prices `workload` pays under `market`: itself, or the market a hybrid assigns."""
    return market if market.hybrid is None else _by_id(plan, market.hybrid.assign[workload.id])


def overrides_runs(workload: Any, market: Any) -> bool:
    """A hybrid may run a workload a different number of times (twelve cheap ablations instead of five)."""
    return market.hybrid is not None and workload.id in market.hybrid.runs


def runs_on(workload: Any, market: Any) -> Any:
    return market.hybrid.runs[workload.id] if overrides_runs(workload, market) else workload.runs


def serving_market(plan: Any, market: Any) -> Any:
    """The market that serves the model: itself, or the one a hybrid names."""
    return market if market.hybrid is None else _by_id(plan, market.hybrid.serving)


def markets_used(plan: Any, market: Any) -> list[Any]:
    """The priced markets `market` buys from, each once (a hybrid pays each market's overheads once)."""
    if market.hybrid is None:
        return [market]
    return [_by_id(plan, market_id) for market_id in dict.fromkeys(market.hybrid.assign.values())]


def market_name(market: Any) -> str:
    """How a market reads in a sheet: its label, else its id."""
    return market.label or market.id
