"""The market kinds. Everything that needs to know how a market behaves asks `kind_of(market)`.

Adding a market kind: write its module (its plan key and model, its checks,
its price rule in both implementations, its Inputs rows, `KIND`), add one line
to `KINDS`, add one test file. A market is of the kind whose key it gives
(`hybrid:`); a market that gives none is rented at its own prices. The full
market model, the core and every kind's key, is `MARKET_MODEL`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, create_model, model_validator

from ..plan.model import Market, Plan
from . import hybrid, owned, rented
from .base import Checked, MarketKind

DEFAULT = rented.KIND
KINDS: tuple[MarketKind, ...] = (
    rented.KIND,
    hybrid.KIND,
    owned.KIND,
)


def _refuse_clashes(kinds: tuple[MarketKind, ...]) -> None:
    ids, keys = [k.id for k in kinds], [k.key for k in kinds if k.key]
    for what, values in (("id", ids), ("plan key", keys + list(Market.model_fields) + ["kind", "note"])):
        for value in values:
            if values.count(value) > 1:
                raise ValueError(f"two market kinds share the {what} {value!r}")
    if [k for k in kinds if k.key is None] != [DEFAULT]:
        raise ValueError("exactly one market kind, the default, has no plan key")
    for kind in kinds:
        if kind.priced and None in (kind.gpu_price, kind.gpu_price_name, kind.rate, kind.rate_name):
            raise ValueError(f"market kind {kind.id!r} sells GPU-hours: give its price rule both ways")


_refuse_clashes(KINDS)
_KEYED = tuple(k for k in KINDS if k.key)
LINE_ITEMS = tuple(item for k in KINDS for item in k.line_items)  # the kinds' own lines, after the registry's


def kind_of(market: Any) -> MarketKind:
    """The kind of a market (a plan model, or a market seen in one scenario): its `kind:`, else its key's."""
    named = getattr(market, "kind", None)
    if isinstance(named, str):
        return next(k for k in KINDS if k.id == named)
    for kind in _KEYED:
        if getattr(market, kind.key or "", None) is not None:
            return kind
    return DEFAULT


def _kind_rules(self: Any) -> Any:
    given = [k.key for k in _KEYED if getattr(self, k.key or "") is not None]
    if len(given) > 1:
        raise ValueError(f"give at most one of {', '.join(f'`{key}`' for key in given)}: a market has one kind")
    kind = kind_of(self)
    if self.kind is not None and [k.key for k in _KEYED if k.key in given] not in ([kind.key], []):
        raise ValueError(f"a market has one kind: `kind: {self.kind}` and an `{given[0]}:` block disagree")
    if self.kind is not None and kind.key is not None and not given:
        raise ValueError(f"a market of `kind: {kind.id}` needs its `{kind.key}:` block")
    if kind.check is not None:
        kind.check(self)
    return self


# The full market: the core, each kind's key (in registry order), then its note.
MARKET_MODEL: type[Market] = create_model(  # type: ignore[call-overload]
    "Market", __base__=Market, __module__=__name__,
    __validators__={"_kind_rules": model_validator(mode="after")(_kind_rules)},
    kind=(Literal[tuple(k.id for k in KINDS)] | None,
          Field(None, description="the market's kind (default rented; a kind's block implies it)")),
    **{str(k.key): (k.annotation, None) for k in _KEYED}, note=(str, Field("", max_length=2000)))
MARKET_MODEL.SCHEMA_RULES = [rule for k in KINDS for rule in k.schema_rules]
# `market.market_kind`: what the sheet kit and a kind's own module ask of a market (its header, which markets it
# buys from) without importing this registry, which stands above them
MARKET_MODEL.market_kind = property(kind_of)


# --- the plan's markets, checked against the rest of it --------------------------------------

def priced_markets(plan: Any) -> dict[str, Any]:
    """The markets that sell GPU-hours at prices of their own, by id."""
    return {m.id: m for m in plan.markets if kind_of(m).priced}


def validate_markets(plan: Plan, gpus: set[str]) -> None:
    priced = priced_markets(plan)
    if not priced:
        raise ValueError("`markets`: at least one market must have its own `gpu_prices`")
    checked = Checked(priced, gpus, {w.id for w in plan.workloads})
    for m, market in enumerate(plan.markets):
        kind = kind_of(market)
        if kind.validate is not None:
            kind.validate(plan, m, market, checked)


def check_serving(plan: Any) -> None:
    """A plan that serves its model: each market names one that serves it."""
    priced = list(priced_markets(plan))
    for m, market in enumerate(plan.markets):
        kind = kind_of(market)
        if kind.check_serving is not None:
            kind.check_serving(plan, m, market, priced)


# --- which market's prices apply (both implementations follow these; no arithmetic) -----------

def paying_market(plan: Any, workload: Any, market: Any) -> Any:
    """The market whose prices `workload` pays under `market`."""
    return kind_of(market).paying(plan, workload, market)


def runs_key(workload: Any, market: Any) -> tuple | None:
    """The key path, under the market, of its own runs of `workload`; None: the workload's `runs`."""
    return kind_of(market).runs_key(workload, market)


def runs_on(workload: Any, market: Any) -> Any:
    key = runs_key(workload, market)
    if key is None:
        return workload.runs
    value = market
    for part in key:
        value = value[part] if isinstance(value, dict) else getattr(value, part)
    return value


def serving_market(plan: Any, market: Any) -> Any:
    return kind_of(market).serving(plan, market)


def markets_used(plan: Any, market: Any) -> list[Any]:
    """The priced markets `market` buys from, each once (it pays each one's overheads once)."""
    return kind_of(market).used(plan, market)


def shows_paying(plan: Any) -> bool:
    """Whether a sheet says, per workload, which market it is priced on (some market pays others' prices)."""
    return any(kind_of(m).shows_paying for m in plan.markets)


# --- the price rule: the reference's and the workbook's ---------------------------------------

def _priced(market: Any) -> MarketKind:
    kind = kind_of(market)
    if not kind.priced:
        raise LookupError(f"market `{market.id}` ({kind.id}) has no prices of its own: ask `paying_market`")
    return kind


def gpu_price(market: Any, gpu: str) -> Any:
    return _priced(market).gpu_price(market, gpu)  # type: ignore[misc]


def rate(market: Any, key: str) -> Any:
    return _priced(market).rate(market, key)  # type: ignore[misc]


def gpu_price_name(inp: Any, market: Any, gpu: str) -> str:
    return _priced(market).gpu_price_name(inp, market, gpu)  # type: ignore[misc]


def rate_name(inp: Any, market: Any, key: str) -> str:
    return _priced(market).rate_name(inp, market, key)  # type: ignore[misc]


def header(market: Any) -> str:
    return kind_of(market).header(market)


def input_cells(market: Any, index: int, plan: Any) -> list[Any]:
    kind = kind_of(market)
    return [] if kind.input_cells is None else kind.input_cells(market, index, plan)
