"""`options`: the plan's serving volume met each way, side by side: call an API, or build the model on a market.

Rule, over the serving horizon (`serving.months`) at the plan's volume (`serving`'s tokens per month):

- `api`: no development; serving per month = tokens per month / 1e6 x the API's price per million tokens;
- one option per market (the plan's own model: its final run's kind, `finetune`, `pretrain`, ...):
  development = the market's total development cost; serving per month = its own serving cost / months
  (the GPU-hours the volume needs at the serving throughput, at the serving market's price);
- total = development + serving per month x months;
- break-even volume of an own-model option = development / (months x (API price per token - own cost per
  token)): above it, the own model costs less over the horizon than the API; none where the API's price per
  token is at or below the own cost per token (the API is cheaper at any volume).

The cheapest option (least total) is named. Base case, reference model only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..lineitems.registry import TOTAL
from ..lineitems.scenario import Resolved
from ..lineitems.serving import OWN, tokens_per_month
from ..lineitems.units import TOKENS_PER_MILLION
from ..plan.model import Plan
from ..plan.numbers import Num
from ..reference import market_lines
from .targets import with_values


@dataclass(frozen=True)
class Option:
    id: str
    kind: str                       # api, or the final run's kind (finetune, pretrain, ...)
    label: str
    development: float
    serving_per_month: float
    total: float
    breakeven_tokens_per_month: float | None


@dataclass(frozen=True)
class Options:
    plan: str
    currency: str
    tokens_per_month: float
    months: float
    options: list[Option]

    @property
    def cheapest(self) -> Option:
        return min(self.options, key=lambda o: o.total)

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "tokens_per_month": self.tokens_per_month,
                "months": self.months, "cheapest": self.cheapest.id, "options": [asdict(o) for o in self.options]}


def build_kind(plan: Plan) -> str:
    finals = [w.kind for w in plan.workloads if w.final_run]
    return finals[0] if finals else "build"


def options(plan: Plan) -> Options:
    serving = Resolved(plan, "base").serving
    if serving is None or serving.api_price_per_million_tokens is None:
        raise UsageError("`options` compares building with buying: the plan needs a `serving` section with "
                         "`api_price_per_million_tokens` (the API's price per million tokens)")
    months = serving.months
    if not months > 0:
        raise UsageError("`options` needs `serving.months` above 0 (the horizon the options are compared over)")
    tokens = tokens_per_month(serving)
    api_per_month = tokens / TOKENS_PER_MILLION * serving.api_price_per_million_tokens
    found = [Option("api", "api", "Call an API", 0.0, api_per_month, api_per_month * months, None)]
    api_per_token = serving.api_price_per_million_tokens / TOKENS_PER_MILLION
    kind = build_kind(plan)
    for market in plan.markets:
        lines = market_lines(plan, market.id, "base")
        development, own = lines[TOTAL.id], lines[OWN.id]
        per_month = own / months
        own_per_token = own / (tokens * months) if tokens > 0 else _own_per_token(plan, market.id)
        margin = api_per_token - own_per_token
        breakeven = development / (months * margin) if margin > 0 else None
        found.append(Option(market.id, kind, market.label or market.id, development, per_month,
                            development + per_month * months, breakeven))
    return Options(plan.name, plan.currency, tokens, months, found)


def _own_per_token(plan: Plan, market: str) -> float:
    """The own serving cost of one token where the plan serves none: priced at a million tokens a month."""
    data = plan.serving  # type: ignore[attr-defined]
    volume = {("serving", "tokens_per_month"): Num.of(TOKENS_PER_MILLION)}
    if data.tokens_per_month is None:
        volume = {("serving", "requests_per_month"): Num.of(TOKENS_PER_MILLION),
                  ("serving", "tokens_per_request"): Num.of(1)}
    priced = with_values(plan, volume)
    months = Resolved(priced, "base").serving.months
    return market_lines(priced, market, "base")[OWN.id] / (TOKENS_PER_MILLION * months)
