"""An owned cluster's plan model (`owned:` on a market of `kind: owned`) and its checks.

Every number is an input like any other (a plain number or a {low, base, high}
range). The defaults follow Epoch AI's training-cost method (hardware amortized
over its life plus energy; github.com/epoch-research/training-cost-trends,
`energy.py` and `cost_analysis.ipynb`, read 2026-12-02); those marked
"assumption" are ours, stated so a reader can change them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from ..lineitems.phasing import month_count
from ..lineitems.units import GPUS_PER_SERVER, MONTHS_PER_YEAR, WATTS_PER_KW
from ..plan.catalog import lookup
from ..plan.model import GPU_PATTERN, ID_PATTERN, Strict, check_start, exactly_one, suggest
from ..plan.numbers import Num, num
from ..plan.timing import Start, offset_of
from .base import Checked

__all__ = ["GPUS_PER_SERVER", "MONTHS_PER_YEAR", "WATTS_PER_KW", "Owned", "check", "validate"]



def _share(maximum: float = 1.0, *, lowers: bool = False, gt: bool = False, what: str = "") -> Any:
    return num(0, maximum, gt=gt, unit="share", lowers_cost=lowers, description=what)


def _cheap(value: float) -> Num:
    """A default of an input whose higher value lowers the cost (residual value, availability)."""
    return Num(value, value, value, False, True)


class Owned(Strict):
    """What was bought, its accounting, its energy, its facility, its upkeep, and where overflow goes."""

    gpu: str = Field(pattern=GPU_PATTERN, description="GPU type from the catalog (`budgetbook gpus`)")
    count: Annotated[Num, num(0, 1e6, gt=True, unit="GPUs")]
    price_per_gpu: Annotated[Num, num(0, 1e7, unit="money per GPU")] | None = None
    price_per_server: Annotated[Num, num(0, 1e8, unit="money per 8-GPU server")] | None = None
    # Epoch AI, server_cost_overhead 1.3-2.1 (90% CI; measured 1.54 P100 to 1.69 V100): +54% (read 2026-12-02)
    server_overhead_share: Annotated[Num, _share(5, what="rest of the server, as a share of the GPU price")] \
        = Num.of(0.54)
    # Epoch AI, cluster_interconnect_overhead 1.07-1.32 (90% CI): +19% on the server cost (read 2026-12-02)
    network_share: Annotated[Num, _share(2, what="cluster network and storage, share of the server cost")] \
        = Num.of(0.19)
    start: Start | None = Field(None, description="purchase: the month bought and put in service (2026-03) or "
                                                  "months after the plan's start; default the plan's start")
    months: Annotated[Num, num(0, 600, gt=True, unit="months", description="months of the plan it is held "
                                                                         "and costed, from its purchase")] \
        | None = Field(None, description="default its life (`life_years` x 12)")
    # assumption: 5 years straight line (hyperscalers depreciate servers over 5-6 years, 10-K filings 2024)
    life_years: Annotated[Num, num(0, 30, gt=True, unit="years", lowers_cost=True,
                                  description="straight-line depreciation life")] = _cheap(5)
    residual_share: Annotated[Num, _share(0.99, lowers=True, what="value left at the end of its life")] \
        = _cheap(0.0)
    cost_of_capital: Annotated[Num, _share(1, what="a year, on the book value (0: none)")] = Num.of(0.0)
    tdp_w: Annotated[Num, num(0, 1e5, gt=True, unit="watts", description="GPU TDP; default the catalog's")] \
        | None = None
    # Epoch AI, chip_to_server_power: H100 DGX 10.2 kW / 8 / 0.7 kW = 1.82; A100 2.03; others 1.8 (2026-12-02)
    power_ratio: Annotated[Num, num(1, 10, unit="ratio", description="server power per GPU / GPU TDP")] \
        = Num.of(1.82)
    # Epoch AI, server_TDP_fraction: 0.75 of TDP while training (GPUs; 2026-12-02)
    busy_share: Annotated[Num, _share(1.5, what="of TDP drawn while busy")] = Num.of(0.75)
    # assumption: an idle HGX server draws about a quarter of its TDP (fans, CPUs, memory, NICs stay on)
    idle_share: Annotated[Num, _share(1.5, what="of TDP drawn while idle")] = Num.of(0.25)
    # Epoch AI, power_usage_effectiveness: 1.25 outside hyperscalers (SemiAnalysis; 2026-12-02)
    pue: Annotated[Num, num(1, 5, unit="ratio", description="power usage effectiveness, 1.0 or more")] \
        = Num.of(1.25)
    # US EIA, Electric Power Monthly table 5.6.a: industrial average 2023, 8.06 cents/kWh (via Epoch AI, 2026-12-02)
    price_per_kwh: Annotated[Num, num(0, 10, unit="money per kWh")] = Num.of(0.0806)
    # CBRE, North America Data Center Trends H2 2024: primary-market asking rate ~$184/kW-month (250-500 kW);
    # the default where neither colocation price is given (`COLOCATION_PER_KW_MONTH`)
    colocation_per_kw_month: Annotated[Num, num(0, 1e4, unit="money per kW-month",
                                                description="per kW of server power; default 184")] | None = None
    colocation_per_rack_month: Annotated[Num, num(0, 1e6, unit="money per rack-month",
                                                  description="instead of per kW: a rack's monthly price")] \
        | None = None
    # assumption: four 8-GPU HGX servers a rack (about 41 kW at 1.82 x 700 W x 32), as liquid-ready colocation
    # racks hold; racks used = GPUs / GPUs per rack (a part rack pays its share)
    gpus_per_rack: Annotated[Num, num(0, 1e4, gt=True, unit="GPUs", lowers_cost=True,
                                      description="GPUs a rack holds (with `colocation_per_rack_month`)")] \
        | None = None
    # assumption: 3% of the purchase a year (vendor support and spares)
    maintenance_share: Annotated[Num, _share(1, what="of the purchase, a year")] = Num.of(0.03)
    # Llama 3 report (Dubey et al. 2024, section 3.3.4): >90% effective training time on 16k H100s
    availability: Annotated[Num, _share(1, lowers=True, gt=True, what="of hours the cluster can deliver")] \
        = _cheap(0.9)
    fallback: str = Field(pattern=ID_PATTERN, description="market id of a rented market whose price the hours "
                                                          "the cluster cannot hold pay")

    @model_validator(mode="after")
    def _one_price(self):
        exactly_one(self, ("price_per_gpu", "price_per_server"), "the price paid")
        if self.colocation_per_kw_month is not None and self.colocation_per_rack_month is not None:
            raise ValueError("give one of `colocation_per_kw_month` and `colocation_per_rack_month` for the "
                             "facility (got both)")
        if self.gpus_per_rack is not None and self.colocation_per_rack_month is None:
            raise ValueError("`gpus_per_rack` prices racks: give `colocation_per_rack_month` too, or remove it")
        return self


COLOCATION_PER_KW_MONTH = 184.0  # CBRE H2 2024, see `Owned.colocation_per_kw_month`
GPUS_PER_RACK = 32.0             # see `Owned.gpus_per_rack`


def per_rack(owned: Any) -> bool:
    """Whether the facility is priced by the rack (else by the kW of server power)."""
    return owned.colocation_per_rack_month is not None


def colocation_kw(owned: Any) -> float:
    return COLOCATION_PER_KW_MONTH if owned.colocation_per_kw_month is None else owned.colocation_per_kw_month


def gpus_per_rack(owned: Any) -> float:
    return GPUS_PER_RACK if owned.gpus_per_rack is None else owned.gpus_per_rack


def catalog_tdp(gpu: str) -> float | None:
    known = lookup(gpu)
    return None if known is None else known.tdp_w


def tdp(owned: Any) -> Any:
    """The GPU's TDP in watts: the plan's, else the catalog's."""
    return owned.tdp_w if owned.tdp_w is not None else catalog_tdp(owned.gpu)


def check(market: Any) -> None:
    if market.owned is None:
        raise ValueError("a market of `kind: owned` needs its `owned:` block (what was bought)")
    if market.reliability is not None:
        raise ValueError("an owned market's downtime is its availability (`owned:`), not `reliability:`: "
                         "remove `reliability`, or give it on the rented markets")
    if market.price_change_per_year is not None:
        raise ValueError("an owned cluster's cost is its purchase and running costs (`owned:`), not a price that "
                         "moves: remove `price_change_per_year`, or give it on the rented markets")
    if market.owned.gpu in market.gpu_prices:
        raise ValueError(f"`gpu_prices.{market.owned.gpu}`: an owned market's own GPU has no price per hour "
                         "(its hours are paid by the cluster's lines); remove it")


def validate(plan: Any, m: int, market: Any, checked: Checked) -> None:
    at, owned = f"`markets[{m}].owned", market.owned
    if lookup(owned.gpu) is None:
        raise ValueError(f"{at}.gpu`: `{owned.gpu}` is not in the GPU catalog (`budgetbook gpus` lists it)"
                         f"{suggest(owned.gpu, [g for g in checked.gpus])}")
    if owned.tdp_w is None and catalog_tdp(owned.gpu) is None:
        raise ValueError(f"{at}.tdp_w`: the catalog has no TDP for `{owned.gpu}`: give `tdp_w` in watts")
    fallback = checked.priced.get(owned.fallback)
    if fallback is None or fallback.owned is not None:
        rented = [k for k, v in checked.priced.items() if v.owned is None]
        raise ValueError(f"{at}.fallback`: `{owned.fallback}` is not a rented market with prices"
                         f"{suggest(owned.fallback, rented)}")
    if owned.gpu not in fallback.gpu_prices:
        raise ValueError(f"{at}.fallback`: market `{owned.fallback}` has no price for GPU `{owned.gpu}` "
                         "(the overflow's price)")
    for gpu in sorted(checked.gpus - set(market.gpu_prices) - {owned.gpu}):
        raise ValueError(f"`markets[{m}].gpu_prices`: market `{market.id}` has no price for GPU `{gpu}` "
                         f"(only `{owned.gpu}` runs on the cluster){suggest(gpu, market.gpu_prices)}")
    check_start(plan, owned.start, f"markets[{m}].owned.start")
    offset, months = purchase_offset(plan, owned), month_count(plan, owned=False)
    latest = max(offset.low, offset.base, offset.high) if isinstance(offset, Num) else offset
    if latest >= months:
        raise ValueError(f"{at}.start`: the purchase (month {latest:g} after the plan's start) falls after the "
                         f"plan's last month ({months}); buy it within the plan, or leave it out (the plan's start)")


def purchase_offset(plan: Any, owned: Any) -> Any:
    offset = offset_of(plan.start, owned.start)
    return 0.0 if offset is None else offset
