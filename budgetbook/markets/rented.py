"""Rented at a price: the default kind. A market that sells GPU-hours, storage and egress at its own prices.

Rule: a workload on this market pays its `gpu_prices` for its GPU, the
market's storage and egress prices for its checkpoints, and the market's
extra engineering days once (tooling for a decentralized market). Every price
is an input row of the market on Inputs.
"""

from __future__ import annotations

from typing import Any

from ..plan.catalog import lookup
from ..plan.inputs import InputCell, walk
from ..plan.model import suggest
from .base import Checked, MarketKind, label_of


def _price_suggestion(gpu: str, prices: dict) -> str:
    """A price under another name of the same catalog GPU (`H100` for `H100_SXM`) first, then a close spelling."""
    known = lookup(gpu)
    same = [key for key in prices if known is not None and lookup(key) is known]
    if known is not None and same:
        return f"; did you mean `{same[0]}`? (the same GPU, {known.name}: name it the same in both places)"
    return suggest(gpu, prices)


def validate(plan: Any, m: int, market: Any, checked: Checked) -> None:
    for gpu in sorted(checked.gpus - set(market.gpu_prices)):
        raise ValueError(f"`markets[{m}].gpu_prices`: market `{market.id}` has no price for GPU "
                         f"`{gpu}`{_price_suggestion(gpu, market.gpu_prices)}")


# --- the reference rule -------------------------------------------------------------------

def gpu_price(market: Any, gpu: str) -> Any:
    return market.gpu_prices[gpu]


def rate(market: Any, key: str) -> Any:
    return getattr(market, key)


# --- the workbook ---------------------------------------------------------------------------

def gpu_price_name(inp: Any, market: Any, gpu: str) -> str:
    return inp.market(None, market, "gpu_prices", gpu)


def rate_name(inp: Any, market: Any, key: str) -> str:
    return inp.market(None, market, key)


def input_cells(market: Any, index: int, plan: Any = None) -> list[InputCell]:
    return list(walk(market, ("markets", index), ("mkt", market.id), label_of(market)))


KIND = MarketKind(id="rented", doc=__doc__ or "", validate=validate, gpu_price=gpu_price, rate=rate,
                  gpu_price_name=gpu_price_name, rate_name=rate_name, input_cells=input_cells)
