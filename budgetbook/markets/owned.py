"""Owned: a cluster the lab bought, as a market. Its hours cost the asset, its energy and its facility.

Rule: a workload on an owned market runs its GPU-hours on the cluster (`owned.gpu`)
at no price per hour: the cluster's lines pay for them (`owned_rule.py`: the
depreciation, the energy at the busy and the idle draw, the facility, the
maintenance, the financing), and the hours it cannot hold in a month go to the
`owned.fallback` market at that market's price for the GPU. Other GPUs, storage,
egress and extra engineering days are priced as on a rented market (its own
`gpu_prices` and rates). The model is served on the fallback market. A plan
marks the market `kind: owned` and gives its `owned:` block.
"""

from __future__ import annotations

from typing import Any

from ..lineitems.base import LineItem, rule
from ..plan.model import suggest
from ..plan.rules import given, not_given, when
from . import owned_book, owned_rule
from .base import Checked, MarketKind, by_id, label_of
from .owned_model import Owned, check, validate

# --- the price rule: the cluster's GPU costs nothing per hour here (its lines pay it) --------------

def gpu_price(market: Any, gpu: str) -> Any:
    return 0.0 if gpu == market.owned.gpu else market.gpu_prices[gpu]


def gpu_price_name(inp: Any, market: Any, gpu: str) -> str:
    return "k_none" if gpu == market.owned.gpu else inp.market(None, market, "gpu_prices", gpu)


def rate(market: Any, key: str) -> Any:
    return getattr(market, key)


def rate_name(inp: Any, market: Any, key: str) -> str:
    return inp.market(None, market, key)


def serving(plan: Any, market: Any) -> Any:
    return by_id(plan, market.owned.fallback)


def header(market: Any) -> str:
    label = label_of(market)
    return label if "own" in label.lower() else label + " (owned)"


def _validate(plan: Any, m: int, market: Any, checked: Checked) -> None:
    if market.owned.fallback == market.id:
        raise ValueError(f"`markets[{m}].owned.fallback`: name another market (a rented one) for the overflow"
                         f"{suggest(market.id, [k for k in checked.priced if k != market.id])}")
    validate(plan, m, market, checked)


def lines(plan: Any) -> list[Any]:
    return [*owned_book.LINES, owned_book.BOOK_VALUE] if owned_book.owned_markets(plan) else []


ITEM = LineItem(id="ownership", doc=rule(owned_rule.__doc__), known_lines=(*owned_book.LINES, owned_book.BOOK_VALUE),
                lines=lines, reference=lambda view: owned_rule.reference(view) if owned_book.owned_markets(view.plan)
                else {}, build=owned_book.build,
                sheet_titles=lambda plan, taken: [owned_book.TITLE] if owned_book.owned_markets(plan) else [],
                fixed_title=owned_book.TITLE, name_prefix="own_",
                monthly=lambda view: owned_rule.monthly(view) if owned_book.owned_markets(view.plan) else {},
                cash_flow=owned_book.cash_flow, timing=owned_book.timing)

KIND = MarketKind(
    id="owned", doc=__doc__ or "", key="owned", annotation=Owned | None, check=check, validate=_validate,
    # its downtime is its availability, its cost its purchase and running costs
    schema_rules=(when(given("owned"), not_given("reliability", "price_change_per_year")),),
    serving=serving, gpu_price=gpu_price, gpu_price_name=gpu_price_name, rate=rate, rate_name=rate_name,
    header=header, input_cells=owned_book.input_cells, line_items=(ITEM,))
