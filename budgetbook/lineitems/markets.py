"""Which market's prices apply: each market's kind says (`markets/`); the line items ask here.

Both implementations (the reference rules and the sheet builders) follow these
rules; they decide *where* a price comes from, not any arithmetic. They work on
a plan model and on a plan seen in one scenario alike.
"""

from __future__ import annotations

from typing import Any

from ..markets.registry import markets_used, paying_market, runs_key, runs_on, serving_market, shows_paying


def overrides_runs(workload: Any, market: Any) -> bool:
    """Whether `market` runs `workload` a number of times of its own (a hybrid's twelve cheap ablations)."""
    return runs_key(workload, market) is not None


def market_name(market: Any) -> str:
    """How a market reads in a sheet: its label, else its id."""
    return market.label or market.id


__all__ = ["market_name", "markets_used", "overrides_runs", "paying_market", "runs_on", "serving_market",
           "shows_paying"]
