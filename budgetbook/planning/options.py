"""`options`: the plan's serving volume met each way, side by side: call an API, or build the model on a market.

Rule, over the serving horizon (`serving.months`) at the plan's volume (`serving`'s tokens per month):

- `api`: no development; serving per month = tokens per month / 1e6 x the API's price per million tokens (its
  one price, or its input and output prices blended by the scope's split: `lineitems/serving.py`);
- one option per market (the plan's own model: its final run's kind, `finetune`, `pretrain`, ...):
  development = the market's total development cost; serving per month = its own serving cost / months
  (the GPU-hours the volume needs at the serving throughput, at the serving market's price);
- total = development + serving per month x months;
- break-even volume of an own-model option = development / (months x (API price per token - own cost per
  token)): above it, the own model costs less over the horizon than the API; none where the API's price per
  token is at or below the own cost per token (the API is cheaper at any volume).

The cheapest option (least total) is named. The Options sheet (`workbook/options_sheet.py`) writes the same
rows as live formulas (a break-even of 0 there where there is none); `sheet_rows` is their reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..lineitems.registry import TOTAL
from ..lineitems.scenario import Resolved
from ..lineitems.serving import OWN, api_price_per_million, serving_figures, tokens_per_month
from ..lineitems.units import TOKENS_PER_MILLION
from ..plan.model import Plan
from ..reference import market_lines


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


def options(plan: Plan, scenario: str = "base") -> Options:
    resolved = Resolved(plan, scenario)
    serving = resolved.serving
    api = None if serving is None else api_price_per_million(resolved)
    if api is None:
        raise UsageError("`options` compares building with buying: the plan needs a `serving` section with "
                         "`api_price_per_million_tokens` (the API's price per million tokens), or "
                         "`api_input_price_per_million_tokens` and `api_output_price_per_million_tokens`")
    months = serving.months
    tokens = tokens_per_month(resolved)
    api_per_month = tokens / TOKENS_PER_MILLION * api
    found = [Option("api", "api", "Call an API", 0.0, api_per_month, api_per_month * months, None)]
    kind = build_kind(plan)
    per_million = {row["market"]: row["cost_per_million_tokens"] for row in serving_figures(plan, scenario)}
    for market in plan.markets:
        lines = market_lines(plan, market.id, scenario)
        development = lines[TOTAL.id]
        per_month = lines[OWN.id] / months if months > 0 else 0.0
        margin = api - per_million[market.id]
        breakeven = development / (months * margin / TOKENS_PER_MILLION) if margin > 0 and months > 0 else None
        found.append(Option(market.id, kind, market.label or market.id, development, per_month,
                            development + per_month * months, breakeven))
    return Options(plan.name, plan.currency, tokens, months, found)


def sheet_rows(plan: Plan, scenario: str = "base") -> Iterator[tuple[str, str, str, str, float]]:
    """(name, key, market, label, value) of each Options-sheet row (`workbook/options_sheet.py`), which `check`
    holds to this reference; none where the plan prices no API."""
    resolved = Resolved(plan, scenario)
    price = None if resolved.serving is None else api_price_per_million(resolved)
    if price is None:
        return
    result = options(plan, scenario)
    api = result.options[0]
    per_million = {row["market"]: row["cost_per_million_tokens"] for row in serving_figures(plan, scenario)}
    for own in result.options[1:]:
        values = {"opt_dev": own.development, "opt_own_month": own.serving_per_month, "opt_own_total": own.total,
                  "opt_api_month": api.serving_per_month, "opt_api_total": api.total,
                  "opt_margin": price - per_million[own.id],
                  "opt_breakeven": own.breakeven_tokens_per_month or 0.0}
        for stem, value in values.items():
            yield f"{stem}_{own.id}", stem.removeprefix("opt_"), own.id, f"Options: {stem[4:]}", float(value)
