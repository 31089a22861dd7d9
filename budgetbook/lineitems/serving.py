"""Serving: the third magnitude, paid per request after training; reported beside the total, never in it.

Rule: tokens per month (stated, requests x tokens per request, or the scope's
features' input and output tokens: `scope.py`) / tokens per second per GPU / 3600
= GPU-hours per month; x months served x the price per GPU-hour of the serving
market. Every token, read or generated, is priced at that throughput (an upper
bound on own cost: a prompt's prefill runs faster than decoding). The tokens per
second per GPU are measured (`tokens_per_second_per_gpu`), or bounded from the
served model's shape and the GPU's memory bandwidth (`model`: `serving_physics.py`).
Beside it, buying the same tokens from an API: tokens x months / one million x the
API's price per million tokens: one price for every token, or (with the scope's
features) input tokens at the input price and output tokens at the output price,
their blend = (input x input price + output x output price) / all tokens.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import Field, model_validator

from ..markets.registry import check_serving, gpu_price
from ..plan.inputs import InputCell, walk
from ..plan.model import GPU_PATTERN, Plan, Price, Strict
from ..plan.numbers import Num, num
from ..plan.rules import given, not_given, when
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet
from . import scope as scope_item
from . import serving_physics as physics
from .base import Line, LineItem, Section, rule
from .markets import serving_market, shows_paying
from .scenario import MarketView, Resolved
from .serving_physics import ServedModel
from .units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

TITLE = "Serving"
SPLIT_PRICES = ("api_input_price_per_million_tokens", "api_output_price_per_million_tokens")
OWN = Line("serving", "Serving", in_total=False)
API = Line("serving_api", "Serving via API (buy)", in_total=False)


class Serving(Strict):
    gpu: str = Field(pattern=GPU_PATTERN)
    tokens_per_month: Annotated[Num, num(0, 1e18, unit="tokens")] | None = None
    requests_per_month: Annotated[Num, num(0, 1e15, unit="requests")] | None = None
    tokens_per_request: Annotated[Num, num(0, 1e7, unit="tokens")] | None = None
    tokens_per_second_per_gpu: Annotated[Num, num(0, 1e9, gt=True, unit="tokens/s", lowers_cost=True,
                                                  description="measured; overrides the decode bound of "
                                                              "`model`")] | None = None
    months: Annotated[Num, num(0, 600, unit="months")]
    api_price_per_million_tokens: Price | None = None
    # an API that prices a prompt's tokens and the generated ones apart (needs the scope's features' split)
    api_input_price_per_million_tokens: Price | None = None
    api_output_price_per_million_tokens: Price | None = None
    # serving from physics (issue 24): the served model's shape bounds the throughput (`serving_physics`)
    model: ServedModel | None = None
    context_tokens: physics.CONTEXT | None = None
    concurrent_sequences: physics.SEQUENCES | None = None
    memory_gb: physics.MEMORY | None = None
    memory_gb_per_s: physics.BANDWIDTH | None = None
    note: str = Field("", max_length=2000)

    @model_validator(mode="after")
    def _one_volume(self):
        # no volume at all is the scope's to give (`validate`, which sees the whole plan)
        by_requests = self.requests_per_month is not None or self.tokens_per_request is not None
        if self.tokens_per_month is not None and by_requests:
            raise ValueError("give `tokens_per_month`, or `requests_per_month` and `tokens_per_request`")
        if by_requests and (self.requests_per_month is None or self.tokens_per_request is None):
            raise ValueError("give both `requests_per_month` and `tokens_per_request`")
        split = [self.api_input_price_per_million_tokens is not None, self.api_output_price_per_million_tokens
                 is not None]
        if any(split) and not all(split):
            raise ValueError("give both `api_input_price_per_million_tokens` and "
                             "`api_output_price_per_million_tokens` (an API's price per input and per output token)")
        if any(split) and self.api_price_per_million_tokens is not None:
            raise ValueError("give `api_price_per_million_tokens` (one price for every token), or the input and "
                             "output prices, not both")
        physics.check(self)
        return self

    SCHEMA_RULES = [when(given("tokens_per_month"), not_given("requests_per_month", "tokens_per_request")),
                    when({"anyOf": [given("requests_per_month"), given("tokens_per_request")]},
                         {"allOf": [given("requests_per_month"), given("tokens_per_request")]}),
                    when({"anyOf": [given(k) for k in SPLIT_PRICES]}, {"allOf": [given(k) for k in SPLIT_PRICES]}),
                    when(given("api_price_per_million_tokens"), not_given(*SPLIT_PRICES)),
                    when(given("model"), {"allOf": [given("context_tokens"), given("concurrent_sequences")]},
                         given("tokens_per_second_per_gpu"))]


def input_cells(plan: Plan) -> list[InputCell]:
    serving = SECTION.of(plan)
    if serving is None:
        return []
    scope = scope_item.SECTION.of(plan)
    catalog = physics.catalog_cells(serving, scope is not None and bool(scope.candidates))
    return catalog + list(walk(serving, ("serving",), (SECTION.input_prefix.rstrip("_"),), "serving"))


def validate(plan: Plan) -> None:
    """Each market must say which market serves the model (a hybrid names one of its markets); the volume is given
    one way (serving's own keys, or the scope's features), and the split API prices have the scope's split."""
    serving = SECTION.of(plan)
    if serving is None:
        return
    check_serving(plan)
    scope = scope_item.SECTION.of(plan)
    physics.check_keys(serving, scope is not None and bool(scope.candidates))
    features = scope is not None and bool(scope.features)
    own = serving.tokens_per_month is not None or serving.requests_per_month is not None
    if features and own:
        raise ValueError("`serving.tokens_per_month`: the scope's features give serving its volume; drop "
                         "`tokens_per_month` (or `requests_per_month` and `tokens_per_request`), or the features")
    if not features and not own:
        raise ValueError("`serving`: give `tokens_per_month`, or `requests_per_month` and `tokens_per_request`, "
                         "or the scope's features (`scope.features`)")
    if serving.api_input_price_per_million_tokens is not None and not features:
        raise ValueError("`serving.api_input_price_per_million_tokens`: an input and an output price need the "
                         "input and output tokens of the scope's features (`scope.features`); or give "
                         "`api_price_per_million_tokens`, one price for every token")


def gpus(plan: Plan) -> set[str]:
    serving = SECTION.of(plan)
    return set() if serving is None else {serving.gpu}


SECTION = Section("serving", Serving | None, None, "Serving", "srv_", input_cells, validate=validate, gpus=gpus)


def lines(plan: Plan) -> list[Line]:
    serving = SECTION.of(plan)
    if serving is None:
        return []
    return [OWN] + ([API] if prices_api(serving) else [])


# --- the reference rule -------------------------------------------------------------------

def prices_api(serving: Any) -> bool:
    """Whether serving prices an API (one price, or an input and an output price)."""
    return serving.api_price_per_million_tokens is not None or serving.api_input_price_per_million_tokens is not None


def tokens_per_month(plan: Any) -> float:
    """Serving's tokens a month, of a (resolved) plan: stated, requests x tokens, or the scope's features'."""
    serving = plan.serving
    split = scope_item.volume(plan)
    if split is not None:
        return split[0] + split[1]
    if serving.tokens_per_month is not None:
        return serving.tokens_per_month
    return serving.requests_per_month * serving.tokens_per_request


def api_price_per_million(plan: Any) -> float | None:
    """The API's price per million tokens, of a (resolved) plan: its one price, or the input and output prices
    blended by the scope's split (0 with no tokens); None where serving prices no API."""
    serving = plan.serving
    if serving.api_price_per_million_tokens is not None:
        return serving.api_price_per_million_tokens
    if serving.api_input_price_per_million_tokens is None:
        return None
    into, out = scope_item.volume(plan) or (0.0, 0.0)
    blend = (into * serving.api_input_price_per_million_tokens + out * serving.api_output_price_per_million_tokens)
    return scope_item.ratio_or_zero(blend, into + out)


def reference(view: MarketView) -> dict[str, float]:
    serving = view.plan.serving
    if serving is None:
        return {}
    tokens = tokens_per_month(view.plan)
    gpu_hours_per_month = tokens / physics.tokens_per_second_per_gpu(serving) / SECONDS_PER_HOUR
    price = gpu_price(serving_market(view.plan, view.market), serving.gpu)
    out = {OWN.id: gpu_hours_per_month * serving.months * price}
    api = api_price_per_million(view.plan)
    if api is not None:
        out[API.id] = tokens * serving.months / TOKENS_PER_MILLION * api
    return out


# the physical figures of serving, per market: (json key, defined-name stem, what it is); `check` holds the
# Serving sheet's rows to them and `show` prints them (`physics.model.physics_rows`)
PRINTED = (
    ("kv_bytes_per_token", "svc_kv_bytes", "KV-cache bytes per token"),
    ("memory_per_replica_gb", "svc_memory_gb", "memory per replica, GB"),
    ("gpus_per_replica", "svc_gpus_per_replica", "GPUs per replica"),
    ("decode_tokens_per_second_per_gpu", "svc_decode", "decode bound, tokens/s per GPU"),
    ("tokens_per_second_per_gpu", "svc_speed", "tokens/s per GPU"),
    ("gpu_hours_per_month", "svc_gpu_hours", "GPU-hours per month"),
    ("cost_per_million_tokens", "svc_per_million", "cost per million tokens"),
)


def serving_figures(plan: Plan, scenario: str = "base") -> list[dict[str, Any]]:
    """Per market, serving's physics (`serving_physics`) and its GPU-hours per month and cost per million
    tokens, in a plan scenario; none without a `serving` section."""
    if SECTION.of(plan) is None:
        return []
    resolved = Resolved(plan, scenario)
    serving = resolved.serving
    found = physics.serving_physics(serving)
    speed = physics.tokens_per_second_per_gpu(serving)
    rows = []
    for market in resolved.markets:
        price = gpu_price(serving_market(resolved, market), serving.gpu)
        rows.append({"market": market.id, **(found.as_dict() if found is not None else {}),
                     "tokens_per_second_per_gpu": speed,
                     "gpu_hours_per_month": tokens_per_month(resolved) / speed / SECONDS_PER_HOUR,
                     "cost_per_million_tokens": physics.cost_per_million_tokens(speed, price)})
    return rows


def physics_rows(plan: Plan, scenario: str = "base") -> Iterator[tuple[str, str, str, str, float]]:
    """(name, json key, market, label, value) of each Serving-sheet figure `check` holds to the reference."""
    for row in serving_figures(plan, scenario):
        for key, stem, what in PRINTED:
            if key in row:
                yield f"{stem}_{row['market']}", key, row["market"], f"Serving: {what}", float(row[key])


# --- the sheet ----------------------------------------------------------------------------

def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    serving = SECTION.of(plan)
    if serving is None:
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Serving",
                      "Tokens per month / tokens per second per GPU = GPU-hours per month, x months "
                      "x price. Never added into the development total.")
    money0 = st.money(plan.currency)
    if shows_paying(plan):
        sheet.text_row("Served on market", lambda m: serving_market(plan, m), "svc_served_on")
    split = None
    scope = scope_item.SECTION.of(plan)
    if scope is not None and scope.features:
        split = scope_item.volume_rows(sheet, inp, plan)
        tokens = sheet.row("Tokens per month (input + output)", "tokens", st.SCALED, "={into}+{out}", "svc_tokens",
                           into=split[0], out=split[1])
        sheet.gap()
    elif serving.tokens_per_month is not None:
        tokens = sheet.row("Tokens per month", "tokens", st.SCALED, "={tokens}", "svc_tokens",
                           tokens=inp[("serving", "tokens_per_month")])
    else:
        tokens = sheet.row("Tokens per month (requests x tokens per request)", "tokens", st.SCALED,
                           "={requests}*{per_request}", "svc_tokens", requests=inp[("serving", "requests_per_month")],
                           per_request=inp[("serving", "tokens_per_request")])
    speed = physics.physics_rows(sheet, inp, serving)
    hours = sheet.row("GPU-hours per month (tokens / tokens per second / 3600)", "GPU-hours", st.HOURS,
                      "={tokens}/{speed}/k_seconds_per_hour", "svc_gpu_hours", tokens=tokens, speed=speed)
    months = sheet.row("Months served", "months", inp.count_format(("serving", "months")), "={months}", "svc_months",
                       months=inp[("serving", "months")])
    price = sheet.row(f"Price per GPU-hour ({serving.gpu})", f"{plan.currency}/GPU-hour", st.money(plan.currency, 2),
                      "={price}", "svc_price", price=lambda m: inp.price(serving_market(plan, m), serving.gpu))
    sheet.row("Cost per million tokens (price / (tokens per second x 3600) x 1e6)", f"{plan.currency}/M tokens",
              st.money(plan.currency, 2), "={price}/({speed}*k_seconds_per_hour)*k_tokens_per_million",
              "svc_per_million", price=price, speed=speed)
    sheet.row("Serving (own GPUs)", plan.currency, money0, "={hours}*{months}*{price}", OWN.id, kind="figure",
              item=OWN.id, hours=hours, months=months, price=price)
    if prices_api(serving):
        sheet.gap()
        unit = f"{plan.currency}/M tokens"
        if serving.api_price_per_million_tokens is not None:
            api = sheet.row("API price per million tokens (every token)", unit, st.money(plan.currency, 2), "={api}",
                            "svc_api_per_million", api=inp[("serving", "api_price_per_million_tokens")])
        else:
            assert split is not None  # input and output prices need the features' split (`validate`)
            api = sheet.row("API price per million tokens, blended ((input x input price + output x output price) "
                            "/ tokens)", unit, st.money(plan.currency, 2),
                            "=IF({tokens}>k_none,({into}*{pin}+{out}*{pout})/{tokens},k_none)", "svc_api_per_million",
                            tokens=tokens, into=split[0], out=split[1],
                            pin=inp[("serving", "api_input_price_per_million_tokens")],
                            pout=inp[("serving", "api_output_price_per_million_tokens")])
        sheet.row("Serving via API (buy): tokens x months / 1e6 x price per million", plan.currency, money0,
                  "={tokens}*{months}/k_tokens_per_million*{api}", API.id, kind="figure", item=API.id,
                  tokens=tokens, months=months, api=api)


def sheet_titles(plan: Plan, taken: set[str]) -> list[str]:
    return [] if SECTION.of(plan) is None else [TITLE]


ITEM = LineItem(id="serving", doc=rule(__doc__), known_lines=(OWN, API), lines=lines, reference=reference,
                build=build, sheet_titles=sheet_titles, fixed_title=TITLE, name_prefix="svc_", section=SECTION)
