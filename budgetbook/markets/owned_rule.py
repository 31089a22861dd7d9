"""The reference rule of an owned cluster: plain Python on a plan seen in one scenario, month by month.

Rule: a cluster of `count` GPUs is bought in its purchase month for count x
price per GPU (a server's price / 8) x (1 + server overhead) x (1 + network
and storage share), and depreciated straight line to its residual value over
its life. The plan holds it, in service, for its `months` from the purchase
(default its life): those months' depreciation (none past its life), energy,
facility, maintenance and financing are the plan's expense. A month's installed GPU-hours are
count x 730.5 x the share of the month in service, its deliverable hours that x
availability. The GPU-hours every line item buys on it for its GPU fill the
deliverable hours month by month; what they cannot hold (the overflow) is paid
at the fallback market's price for that GPU (x its price index of the month,
where its prices move and no commitment holds the GPU there); the installed hours not busy are
idle. Energy: (busy hours x busy share + idle hours x idle share) x TDP x the
chip-to-server power ratio / 1000 x PUE x price per kWh. Facility: count x TDP
x ratio / 1000 kW x colocation per kW-month x months in service, or, priced by
the rack, count / GPUs per rack x colocation per rack-month x months in service. Maintenance:
purchase x share a year / 12 a month in service. Financing: cost of capital /
12 x the book value at the month's start, a month in service. A market pays
the clusters of the markets it buys from. The book value when the plan lets
it go (residual + the rest x the share of its life left) is shown beside the
total, never added to it. Break-even utilization against a rented market: the
cluster's costs that do not follow the load, over the deliverable hours x (the
rented price less the busy hour's extra energy); where the rented market's
prices move, each month's deliverable hours at that month's price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..lineitems.phasing import owned_window, paid_index
from ..lineitems.scenario import MarketView
from ..lineitems.units import HOURS_PER_MONTH
from ..plan.timing import share
from .owned_model import (
    GPUS_PER_SERVER,
    MONTHS_PER_YEAR,
    WATTS_PER_KW,
    colocation_kw,
    gpus_per_rack,
    per_rack,
    purchase_offset,
    tdp,
)

PARTS = ("depreciation", "energy", "facility", "maintenance", "financing", "overflow")


def positive(x: Any) -> Any:
    """max(0, x) of a number, or of each sample of a numpy array (`simulate` runs the rules on arrays)."""
    return x.clip(min=0.0) if hasattr(x, "clip") else max(0.0, x)


def owned_used(plan: Any, market: Any) -> list[Any]:
    """The owned markets whose clusters `market` pays: itself, or those a hybrid uses."""
    return [m for m in market.market_kind.used(plan, market) if m.owned is not None]


def purchase(owned: Any) -> Any:
    price = owned.price_per_gpu if owned.price_per_gpu is not None else owned.price_per_server / GPUS_PER_SERVER
    return owned.count * price * (1 + owned.server_overhead_share) * (1 + owned.network_share)


def server_kw(owned: Any) -> Any:
    """A GPU's share of its server's power, in kW (IT load, before PUE)."""
    return tdp(owned) * owned.power_ratio / WATTS_PER_KW


@dataclass
class Cluster:
    """One owned market's cluster as one column's market sees it: month by month."""

    market: Any
    installed: list[Any]
    deliverable: list[Any]
    used: list[Any]
    held: list[Any]
    overflow: list[Any]
    idle: list[Any]
    months: dict[str, list[Any]]   # a part of PARTS -> its months
    purchase: Any
    book_value_at_end: Any
    fixed: Any                     # the costs that do not follow the load, over the plan
    busy_extra: Any                # a busy hour's energy beyond an idle hour's


def cluster(view: MarketView, owner: Any) -> Cluster:
    plan, owned, count = view.plan, owner.owned, view.months
    start, held_for = owned_window(plan, owned)
    life = owned.life_years * MONTHS_PER_YEAR
    depreciated = life - positive(life - held_for)     # the held months inside its life
    service = [share(start, held_for, n) * held_for for n in range(count)]
    ageing = [share(start, depreciated, n) * depreciated for n in range(count)]
    installed = [owned.count * HOURS_PER_MONTH * s for s in service]
    deliverable = [h * owned.availability for h in installed]
    used = [0.0] * count
    for bought in view.gpu_hours():
        if bought.market == owner.id and bought.gpu == owned.gpu:
            for n, value in enumerate(view.spread(bought.hours, bought.window)):
                used[n] = used[n] + value
    held = [u - positive(u - d) for u, d in zip(used, deliverable, strict=True)]
    overflow = [u - h for u, h in zip(used, held, strict=True)]
    idle = [i - h for i, h in zip(installed, held, strict=True)]
    bought_for = purchase(owned)
    per_month = bought_for * (1 - owned.residual_share) / life
    kwh_price = server_kw(owned) * owned.pue * owned.price_per_kwh
    to = next(m for m in plan.markets if m.id == owned.fallback)
    fallback = to.gpu_prices[owned.gpu]
    index = paid_index(view, to, owned.gpu) or [1.0] * count  # the month's price, where the fallback's moves
    elapsed = [life - positive(life - positive(n - start)) for n in range(count)]  # in service before month n
    months = {
        "depreciation": [per_month * a for a in ageing],
        "energy": [(h * owned.busy_share + i * owned.idle_share) * kwh_price for h, i in zip(held, idle, strict=True)],
        "facility": [(owned.count / gpus_per_rack(owned) * owned.colocation_per_rack_month if per_rack(owned)
                      else owned.count * server_kw(owned) * colocation_kw(owned)) * s for s in service],
        "maintenance": [bought_for * owned.maintenance_share / MONTHS_PER_YEAR * s for s in service],
        "financing": [owned.cost_of_capital / MONTHS_PER_YEAR * (bought_for - per_month * e) * s
                      for e, s in zip(elapsed, service, strict=True)],
        "overflow": [o * fallback * i for o, i in zip(overflow, index, strict=True)],
    }
    fixed = sum(sum(months[p]) for p in ("depreciation", "facility", "maintenance", "financing")) \
        + sum(installed) * owned.idle_share * kwh_price
    residual = bought_for * owned.residual_share
    left = positive(life - held_for) / life   # the share of its life left when the plan lets it go
    return Cluster(owner, installed, deliverable, used, held, overflow, idle, months, bought_for,
                   residual + (bought_for - residual) * left, fixed, (owned.busy_share - owned.idle_share) * kwh_price)


def purchase_cash(view: MarketView) -> list[Any]:
    """The cash view's purchase: each cluster the market pays, its price in the month it is bought."""
    out = [0.0] * view.months
    for owner in owned_used(view.plan, view.market):
        month = int(purchase_offset(view.plan, owner.owned))
        if month < view.months:
            out[month] += purchase(owner.owned)
    return out


def clusters(view: MarketView) -> list[Cluster]:
    return [cluster(view, owner) for owner in owned_used(view.plan, view.market)]


def monthly(view: MarketView) -> dict[str, list[Any]]:
    found = clusters(view)
    return {f"owned_{part}": [sum((c.months[part][n] for c in found), 0.0) for n in range(view.months)]
            for part in PARTS}


def reference(view: MarketView) -> dict[str, Any]:
    found = clusters(view)
    out = {f"owned_{part}": sum((sum(c.months[part]) for c in found), 0.0) for part in PARTS}
    out["owned_book_value"] = sum((c.book_value_at_end for c in found), 0.0)
    return out


def cost_per_gpu_hour(c: Cluster) -> float | None:
    """The cluster's expense (overflow aside) per GPU-hour it delivered busy."""
    busy = sum(c.held)
    cost = sum(sum(c.months[p]) for p in PARTS if p != "overflow")
    return None if busy <= 0 else cost / busy


def utilization(c: Cluster) -> float | None:
    deliverable = sum(c.deliverable)
    return None if deliverable <= 0 else sum(c.held) / deliverable


def breakeven(c: Cluster, rented_price: float, index: list[float] | None = None) -> float | None:
    """The share of the deliverable hours at which the cluster costs what renting them at `rented_price` does
    (x the rented market's price index of each month where its prices move: `index`); None where no load makes
    owning cheaper (the rented hours cost no more than a busy hour's extra energy)."""
    deliverable = sum(c.deliverable)
    rented = deliverable if index is None else sum(d * i for d, i in zip(c.deliverable, index, strict=True))
    margin = rented_price * rented - c.busy_extra * deliverable
    return None if margin <= 0 or deliverable <= 0 else c.fixed / margin
