"""Hybrid: a market of markets. Each workload runs on a priced market it names, at that market's prices.

Rule: `hybrid.assign` sends every workload to a market with prices of its own;
the workload pays that market's price per GPU-hour, storage and egress, and the
hybrid pays the extra engineering days of each market it uses once (and the
commitments reserved on them). `hybrid.runs` may run a workload a different
number of times (twelve cheap ablations instead of five); `hybrid.serving`
names the market that serves the model. A hybrid has no prices of its own, so
its only Inputs rows are its own runs: its storage, egress and extra days are
read by no formula and are not written.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..plan.inputs import InputCell, walk
from ..plan.model import MAX_ENTRIES, Count, Strict, suggest
from ..plan.rules import ZERO, given, when
from .base import Checked, MarketKind, by_id, label_of


class Hybrid(Strict):
    # keys are workload ids (checked by the plan), so the workloads' cap bounds them; said here to refuse early
    assign: dict[str, str] = Field(max_length=MAX_ENTRIES, description="workload id -> market id it runs on")
    runs: dict[str, Count] = Field(default_factory=dict, max_length=MAX_ENTRIES,
                                  description="workload id -> runs on this market, if different")
    serving: str | None = Field(None, description="market id that serves the model")


# --- the plan -------------------------------------------------------------------------------

def check(market: Any) -> None:
    if market.gpu_prices or market.storage_per_gb_month.base or market.egress_per_gb.base:
        raise ValueError("a hybrid market takes its prices from the markets it assigns")
    if market.reliability is not None:
        raise ValueError("a hybrid market pays the reliability of the markets it assigns: give `reliability` "
                         "on them")
    if market.price_change_per_year is not None:
        raise ValueError("a hybrid market pays the prices of the markets it assigns, as they move: give "
                         "`price_change_per_year` on them")


def validate(plan: Any, m: int, market: Any, checked: Checked) -> None:
    at, hybrid, workload_ids, priced = f"`markets[{m}]", market.hybrid, checked.workloads, checked.priced
    for wid, mid in hybrid.assign.items():
        if wid not in workload_ids:
            raise ValueError(f"{at}.hybrid.assign.{wid}`: no workload has the id `{wid}`"
                             f"{suggest(wid, workload_ids)}")
        if mid not in priced:
            raise ValueError(f"{at}.hybrid.assign.{wid}`: `{mid}` is not a market with prices"
                             f"{suggest(mid, priced)}")
    for wid in sorted(workload_ids - set(hybrid.assign)):
        raise ValueError(f"{at}.hybrid.assign`: workload `{wid}` is not assigned to a market")
    for wid in hybrid.runs:
        if wid not in workload_ids:
            raise ValueError(f"{at}.hybrid.runs.{wid}`: no workload has the id `{wid}`{suggest(wid, workload_ids)}")


def check_serving(plan: Any, m: int, market: Any, priced: list[str]) -> None:
    """A plan that serves its model: a hybrid must say which of its markets serves it."""
    if market.hybrid.serving not in priced:
        raise ValueError(f"`markets[{m}].hybrid.serving`: name the market with prices that serves the model "
                         f"(one of {', '.join(f'`{p}`' for p in priced)})")


# --- where the prices come from -------------------------------------------------------------

def paying(plan: Any, workload: Any, market: Any) -> Any:
    return by_id(plan, market.hybrid.assign[workload.id])


def runs_key(workload: Any, market: Any) -> tuple | None:
    return ("hybrid", "runs", workload.id) if workload.id in market.hybrid.runs else None


def serving(plan: Any, market: Any) -> Any:
    return by_id(plan, market.hybrid.serving)


def used(plan: Any, market: Any) -> list[Any]:
    return [by_id(plan, market_id) for market_id in dict.fromkeys(market.hybrid.assign.values())]


# --- the workbook ---------------------------------------------------------------------------

def header(market: Any) -> str:
    label = label_of(market)
    return label if "hybrid" in label.lower() else label + " (hybrid)"


def input_cells(market: Any, index: int, plan: Any = None) -> list[InputCell]:
    """Its own runs (`mkt_<market>_runs_<workload>`) only: no formula reads a hybrid's storage, egress or extra
    days (it pays those of the markets it uses), so they are not inputs."""
    return list(walk(market.hybrid, ("markets", index, "hybrid"), ("mkt", market.id), label_of(market)))


KIND = MarketKind(
    id="hybrid", doc=__doc__ or "", key="hybrid", annotation=Hybrid | None, priced=False,
    schema_rules=(when(given("hybrid"), {"properties": {"gpu_prices": {"maxProperties": 0},
                                                        "storage_per_gb_month": ZERO, "egress_per_gb": ZERO},
                                         "not": {"anyOf": [given("reliability"),
                                                           given("price_change_per_year")]}}),),
    check=check, validate=validate, check_serving=check_serving, paying=paying, runs_key=runs_key,
    serving=serving, used=used, shows_paying=True, header=header, input_cells=input_cells)
