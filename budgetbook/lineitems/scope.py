"""Scope: what the product is to do, written before the budget (seed 003: "write the scope document first").

Rule: each feature is served `requests_per_month` requests (growing by `growth` a month, compounded) of
`input_tokens_per_request` prompt tokens and `output_tokens_per_request` generated tokens, for its `months`
(default, and at most, serving's months) from serving's start. Over serving's months a feature serves
requests x tokens per request x G, where G = n (no growth) or ((1 + growth)^n - 1) / growth, n = its months
(a geometric sum: month m serves (1 + growth)^m of the first month's requests). Serving's tokens a month are
the features' tokens over serving's months / those months, input and output apart: an API priced per input
and per output token (`serving.api_input_price_per_million_tokens`, `..._output_...`) charges each its price.

The scope has no line of its own: it gives serving its volume (the Serving sheet's rows, `serving.py`)
and `options` its candidates. This module holds the section's keys, its checks and the reference rule.
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from pydantic import Field

from ..plan.inputs import InputCell, bounds_of, walk
from ..plan.model import MAX_ENTRIES, Plan, Strict
from ..plan.numbers import Num, num
from ..sheetkit import style as st
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, Rows
from .base import LineItem, Section, no_sheet, rule
from .scenario import MarketView


class Feature(Strict):
    """One feature of the product, as the scope document sizes it."""

    name: str = Field(min_length=1, max_length=200)
    requests_per_month: Annotated[Num, num(0, 1e15, unit="requests", description="in its first month")]
    input_tokens_per_request: Annotated[Num, num(0, 1e7, unit="tokens", description="prompt and context "
                                                                                   "read per request")]
    output_tokens_per_request: Annotated[Num, num(0, 1e7, unit="tokens", description="tokens generated "
                                                                                    "per request")]
    months: Annotated[Num, num(0, 600, unit="months", description="served from serving's start; default (and "
                                                                   "at most) serving's months")] | None = None
    growth: Annotated[Num, num(0, 1, unit="share a month", description="requests grow by this share each "
                                                                      "month, compounded")] = Num.of(0)
    note: str = Field("", max_length=2000)


class Scope(Strict):
    features: list[Feature] = Field(default_factory=list, max_length=MAX_ENTRIES)
    note: str = Field("", max_length=2000)


def input_cells(plan: Plan) -> list[InputCell]:
    scope = SECTION.of(plan)
    if scope is None:
        return []
    cells: list[InputCell] = []
    for i, feature in enumerate(scope.features):
        # features have free-text names, so their cells are numbered
        cells += list(walk(feature, ("scope", "features", i), (f"{SECTION.input_prefix}f{i + 1}",), feature.name))
        if feature.months is None:  # serving's months: shown as the feature's input, so finance may shorten it
            serving = getattr(plan, "serving", None)
            months = serving.months if serving is not None else Num.of(0)
            cells.append(InputCell(f"{SECTION.input_prefix}f{i + 1}_months", ("scope", "features", i, "months"),
                                   f"{feature.name} months", months, bounds_of(Feature, "months"),
                                   "default: serving's months"))
    return cells


def validate(plan: Plan) -> None:
    scope = SECTION.of(plan)
    if scope is not None and getattr(plan, "serving", None) is None:
        raise ValueError("`scope`: needs a `serving` section (the GPU and the months its volume is served on)")


SECTION = Section("scope", Scope | None, None, "Scope", "scp_", input_cells, validate=validate)


# --- the reference rule -------------------------------------------------------------------

def growth_sum(months: Any, growth: Any) -> Any:
    """The months' requests as a multiple of the first month's: n, or ((1 + g)^n - 1) / g (numbers or arrays)."""
    some = np.where(growth == 0, 1.0, growth)
    return plain(np.where(growth == 0, months, ((1 + some) ** months - 1) / some))


def plain(value: Any) -> Any:
    """A 0-d array as a float: the base case stays a number, a simulation's draws an array."""
    return float(value) if np.ndim(value) == 0 else value


def volume(plan: Any) -> tuple[Any, Any] | None:
    """(input, output) tokens a month over serving's months from the scope's features (a resolved plan, its
    numbers or a simulation's arrays); None where the scope gives no features."""
    scope, serving = getattr(plan, "scope", None), getattr(plan, "serving", None)
    if scope is None or not scope.features or serving is None:
        return None
    served = serving.months
    into: Any = 0.0
    out: Any = 0.0
    for feature in scope.features:
        n = np.minimum(served if feature.months is None else feature.months, served)
        requests = feature.requests_per_month * growth_sum(n, feature.growth)
        into = into + requests * feature.input_tokens_per_request
        out = out + requests * feature.output_tokens_per_request
    some = np.where(served > 0, served, 1.0)
    return plain(np.where(served > 0, into / some, 0.0)), plain(np.where(served > 0, out / some, 0.0))


def reference(view: MarketView) -> dict[str, float]:
    return {}


# --- the sheet: the Serving sheet's volume rows -------------------------------------------

def volume_rows(sheet: CalcSheet, inp: Inputs, plan: Plan) -> tuple[int, int]:
    """The Serving sheet's rows from the features to the input and output tokens a month; returns those rows."""
    scope = SECTION.of(plan)
    served = inp[("serving", "months")]
    sheet.section("Scope: tokens a month over the serving months, from the features")
    ins: list[int] = []
    outs: list[int] = []
    for i, feature in enumerate(scope.features):
        key = ("scope", "features", i)
        n = sheet.row(f"{feature.name}: months served (its months, at most serving's)", "months", st.DECIMALS,
                      "=MIN({months},{served})", f"svc_f{i + 1}_months", months=inp[key + ("months",)], served=served)
        grown = sheet.row(f"{feature.name}: months' requests / first month's (n, or ((1 + growth)^n - 1) / growth)",
                          "months", st.DECIMALS,
                          "=IF({growth}=k_none,{n},(POWER(k_one+{growth},{n})-k_one)/{growth})",
                          f"svc_f{i + 1}_grown", growth=inp[key + ("growth",)], n=n)
        for way, stem, store in (("input", "in", ins), ("output", "out", outs)):
            store.append(sheet.row(
                f"{feature.name}: {way} tokens a month (requests x {way} tokens x grown / serving's months)",
                "tokens", st.SCALED, "=IF({served}>k_none,{requests}*{per}*{grown}/{served},k_none)",
                f"svc_f{i + 1}_{stem}", served=served, requests=inp[key + ("requests_per_month",)],
                per=inp[key + (f"{way}_tokens_per_request",)], grown=grown))
    into = sheet.row("Input tokens a month (the features')", "tokens", st.SCALED, "=SUM({parts})",
                     "svc_input_tokens", parts=Rows(tuple(ins)))
    out = sheet.row("Output tokens a month (the features')", "tokens", st.SCALED, "=SUM({parts})",
                    "svc_output_tokens", parts=Rows(tuple(outs)))
    return into, out


ITEM = LineItem(id="scope", doc=rule(__doc__), known_lines=(), lines=lambda plan: [], reference=reference,
                build=lambda book, plan, inp: None, sheet_titles=no_sheet, name_prefix="", section=SECTION)
