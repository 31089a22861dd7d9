"""What a market kind is: its plan key, its checks, its price rule in both implementations, its Inputs rows.

Each kind module ends with one `MarketKind` (its `KIND`); `registry.py` lists
them. Everything that needs to know how a market behaves (which market's
prices a workload pays, which markets' overheads a market pays, its runs of a
workload, the market serving the model, its header, its input cells, its
checks) asks the market's kind instead of testing what the market is.

A kind whose costs are not hours x price (an owned cluster: depreciation,
energy, facility, whatever the load) brings line items of its own
(`line_items`); they read the GPU-hours the other items declare
(`MarketView.gpu_hours`, `CashFlow.gpu_hours`), as a commitment's block does.

The price rule comes twice, written apart: `gpu_price` and `rate` are the
reference's (plain Python on a plan seen in one scenario), `gpu_price_name`
and `rate_name` the workbook's (the defined name a formula reads). A kind
without prices of its own (a hybrid) leaves them out: it names, for each
workload, the priced market that sells it the hours (`paying`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..plan.rules import Rule

RATES = ("storage_per_gb_month", "egress_per_gb", "extra_engineering_days")  # what `rate` is asked for


def by_id(plan: Any, market_id: str) -> Any:
    return next(m for m in plan.markets if m.id == market_id)


def label_of(market: Any) -> str:
    return market.label or market.id


@dataclass(frozen=True)
class Checked:
    """What a kind's cross-reference check is given beside the plan: the priced markets, the GPUs they must price."""

    priced: dict[str, Any]      # market id -> market, of the markets with prices of their own
    gpus: set[str]              # every GPU a workload or a line item's section runs on
    workloads: set[str]         # workload ids


@dataclass(frozen=True)
class MarketKind:
    id: str
    doc: str                                                # the kind in words (docs)
    key: str | None = None                                  # the market's plan key that makes it this kind
    annotation: Any = None                                  # the pydantic type of that key
    schema_rules: tuple[Rule, ...] = ()                     # JSON Schema rules of a market of this kind
    priced: bool = True                                     # sells GPU-hours at prices of its own
    # --- the plan: one market alone (pydantic's validator), then against the rest of the plan ---------
    check: Callable[[Any], None] | None = None              # raises ValueError("...")
    validate: Callable[[Any, int, Any, Checked], None] | None = None   # raises ValueError("`markets[i]...`: ...")
    check_serving: Callable[[Any, int, Any, list[str]], None] | None = None  # a plan with `serving:`
    # --- where the prices come from (both implementations follow it; no arithmetic) -------------------
    paying: Callable[[Any, Any, Any], Any] = lambda plan, workload, market: market
    runs_key: Callable[[Any, Any], tuple | None] = lambda workload, market: None  # its own runs' key path
    serving: Callable[[Any, Any], Any] = lambda plan, market: market
    used: Callable[[Any, Any], list[Any]] = lambda plan, market: [market]     # priced markets, each once
    shows_paying: bool = False                              # sheets say per workload which market it pays
    # --- the price rule: the reference's (a float) and the workbook's (an input's defined name) ------
    gpu_price: Callable[[Any, str], Any] | None = None      # market, GPU -> price per GPU-hour
    gpu_price_name: Callable[[Any, Any, str], str] | None = None   # Inputs, market, GPU -> defined name
    rate: Callable[[Any, str], Any] | None = None           # market, one of RATES -> its value
    rate_name: Callable[[Any, Any, str], str] | None = None  # Inputs, market, one of RATES -> defined name
    # --- the workbook ---------------------------------------------------------------------------------
    header: Callable[[Any], str] = label_of                 # a market column's header
    input_cells: Callable[[Any, int, Any], list[Any]] | None = None   # market, its index, plan -> its Inputs rows
    # --- lines of its own (an owned cluster's depreciation, energy, facility): `lineitems.base.LineItem`s,
    # listed after the registry's items; each has its sheet, its Cash flow rows and its reference rule
    line_items: tuple[Any, ...] = ()
