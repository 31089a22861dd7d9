"""`options`: the plan's serving volume met each way, side by side: call an API, or build the model on a market.

Rule, over the serving horizon (`serving.months`) at the plan's volume (`serving`'s tokens per month):

- `api`: no development; serving per month = tokens per month / 1e6 x the API's price per million tokens (its
  one price, or its input and output prices blended by the scope's split: `lineitems/serving.py`);
- one option per market, after the candidates' (the plan's own model: its final run's kind, `finetune`,
  `pretrain`, ...):
  development = the market's total development cost; serving per month = its own serving cost / months
  (the GPU-hours the volume needs at the serving throughput, at the serving market's price);
- with the scope's candidates (`lineitems/scope.py`), three options per candidate on the market with the
  cheapest serving GPU-hour: `lora_<id>`, `finetune_<id>` and `scratch_<id>`, development = that way's
  training compute (LoRA 0.8 of a full fine-tune's, from scratch at 20 tokens per parameter plus a full
  fine-tune), serving per month = the volume at the candidate's own decode bound;
- total = development + serving per month x months;
- break-even volume of an own-model option = development / (months x (API price per token - own cost per
  token)): above it, the own model costs less over the horizon than the API; none where the API's price per
  token is at or below the own cost per token (the API is cheaper at any volume).

The cheapest option (least total) is named, and the first own option to beat the API as the volume grows
(the least break-even): "the API below N tokens a month, then X". The Options sheet
(`workbook/options_sheet.py`) writes the same rows as live formulas (a break-even of 0 there where there is
none); `sheet_rows` is their reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..lineitems.markets import serving_market
from ..lineitems.registry import TOTAL
from ..lineitems.scenario import Resolved
from ..lineitems.scope import KINDS, candidate_figures, peak_tflops
from ..lineitems.serving import OWN, api_price_per_million, serving_figures, tokens_per_month
from ..lineitems.units import FLOP_PER_TFLOP, SECONDS_PER_HOUR, TOKENS_PER_MILLION
from ..markets.registry import gpu_price
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

    @property
    def crossover(self) -> Option | None:
        """The own option that beats the API at the least volume (the least break-even); None if none does."""
        found = [o for o in self.options if o.breakeven_tokens_per_month is not None]
        return min(found, key=lambda o: o.breakeven_tokens_per_month or 0.0) if found else None

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
    if scenario == "base" and not months > 0:
        raise UsageError("`options` needs `serving.months` above 0 (the horizon the options are compared over)")
    tokens = tokens_per_month(resolved)
    api_per_month = tokens / TOKENS_PER_MILLION * api
    found = [Option("api", "api", "Call an API", 0.0, api_per_month, api_per_month * months, None)]
    scope = resolved.scope
    if scope is not None and scope.candidates:
        prices = {m.id: gpu_price(serving_market(resolved, m), serving.gpu) for m in resolved.markets}
        labels = dict(KINDS)
        for fig in candidate_figures(resolved, min(prices.values()), tokens):  # the cheapest serving GPU-hour
            margin = api - fig["per_million"]
            for way in labels:
                development = fig["development"][way]
                per_month = fig["serving_per_month"]
                breakeven = _breakeven(development, months, margin)
                found.append(Option(f"{way}_{fig['id']}", way, f"{labels[way]} {fig['name']}", development,
                                    per_month, development + per_month * months, breakeven))
    kind = build_kind(plan)
    per_million = {row["market"]: row["cost_per_million_tokens"] for row in serving_figures(plan, scenario)}
    for market in plan.markets:
        lines = market_lines(plan, market.id, scenario)
        development = lines[TOTAL.id]
        per_month = lines[OWN.id] / months if months > 0 else 0.0
        margin = api - per_million[market.id]
        breakeven = _breakeven(development, months, margin)
        found.append(Option(market.id, kind, f"This plan on {market.label or market.id}", development,
                            per_month, development + per_month * months, breakeven))
    return Options(plan.name, plan.currency, tokens, months, found)


def _breakeven(development: float, months: float, margin: float) -> float | None:
    """development / (months x margin per token); None where the API costs no more per token, or no months."""
    return development / (months * margin / TOKENS_PER_MILLION) if margin > 0 and months > 0 else None


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
    markets = {m.id for m in plan.markets}
    for own in (o for o in result.options if o.id in markets):
        values = {"opt_dev": own.development, "opt_own_month": own.serving_per_month, "opt_own_total": own.total,
                  "opt_api_month": api.serving_per_month, "opt_api_total": api.total,
                  "opt_margin": price - per_million[own.id],
                  "opt_breakeven": own.breakeven_tokens_per_month or 0.0}
        for stem, value in values.items():
            yield f"{stem}_{own.id}", stem.removeprefix("opt_"), own.id, f"Options: {stem[4:]}", float(value)
    scope = resolved.scope
    if scope is None or not scope.candidates:
        return
    tokens = tokens_per_month(resolved)
    months = resolved.serving.months
    for m in resolved.markets:
        gpu_hour = gpu_price(serving_market(resolved, m), resolved.serving.gpu)
        per_hour = peak_tflops(resolved) * FLOP_PER_TFLOP * scope.mfu * SECONDS_PER_HOUR
        yield f"opt_flop_per_hour_{m.id}", "flop_per_gpu_hour", m.id, "Options: FLOP a GPU-hour", float(per_hour)
        for fig in candidate_figures(resolved, gpu_hour, tokens):
            margin = price - fig["per_million"]
            values = {"ft_flop": fig["flop"]["finetune"], "scratch_flop": fig["flop"]["scratch"],
                      "memory": fig["memory_gb"], "decode": fig["decode"], "per_million": fig["per_million"],
                      "month": fig["serving_per_month"], "margin": margin}
            for way, _ in KINDS:
                development = fig["development"][way]
                values |= {f"{way}_dev": development, f"{way}_total": development + fig["serving_per_month"] * months,
                           f"{way}_breakeven": _breakeven(development, months, margin) or 0.0}
            for stem, value in values.items():
                yield (f"opt_{fig['id']}_{stem}_{m.id}", f"{fig['id']}_{stem}", m.id,
                       f"Options: {fig['name']} {stem}", float(value))
