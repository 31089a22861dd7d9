"""Scope: what the product is to do, written before the budget (seed 003: "write the scope document first").

Rule: each feature is served `requests_per_month` requests (growing by `growth` a month, compounded) of
`input_tokens_per_request` prompt tokens and `output_tokens_per_request` generated tokens, for its `months`
(default, and at most, serving's months) from serving's start. Over serving's months a feature serves
requests x tokens per request x G, where G = n (no growth) or ((1 + growth)^n - 1) / growth, n = its months
(a geometric sum: month m serves (1 + growth)^m of the first month's requests). Serving's tokens a month are
the features' tokens over serving's months / those months, input and output apart: an API priced per input
and per output token (`serving.api_input_price_per_million_tokens`, `..._output_...`) charges each its price.

Candidates: the base models one could build on, each with the shape serving needs (config.json), "the
smallest model that meets the quality bar" being the user's choice of candidates. Each is met three ways,
trained on serving's GPU at the scope's `mfu` (FLOP a GPU-hour = peak TFLOP/s x 1e12 x MFU x 3600), priced
at the serving market's GPU-hour:

- full fine-tune: `flop_per_param_token` (6: forward 2 + backward 4, Kaplan et al. 2020, arXiv:2001.08361)
  x parameters x `finetune_tokens`;
- LoRA fine-tune: `lora_compute_share` (0.8) x the full fine-tune's: Hu et al. 2021, "LoRA: Low-Rank
  Adaptation of Large Language Models", arXiv:2106.09685, section 4.2: "a 25% speedup during training on
  GPT-3 175B compared to full fine-tuning" (no gradients for the frozen weights), 1 / 1.25 = 0.8, read
  2026-12-02;
- train from scratch: 6 x parameters x (`tokens_per_param` (20, Chinchilla: Hoffmann et al. 2022,
  arXiv:2203.15556) x parameters), plus a full fine-tune as its post-training;
- each way's development adds the scope's `fixed_cost` (the team, data and evaluation any own model needs);
- its own serving: the decode bound of its shape at serving's context, sequences and GPU
  (`serving_physics.py`), priced as serving is.

The scope has no line of its own: it gives serving its volume (the Serving sheet's rows, `serving.py`)
and `options` its candidates (the Options sheet's rows, `workbook/options_sheet.py`). This module holds
the section's keys, its checks and the reference rule.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..plan.catalog import lookup
from ..plan.inputs import InputCell, bounds_of, walk
from ..plan.model import ID_PATTERN, MAX_ENTRIES, Plan, Strict
from ..plan.numbers import Num, num
from ..sheetkit import style as st
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, Rows
from .base import LineItem, Section, no_sheet, rule
from .scenario import MarketView
from .serving_physics import ServedModel, cost_per_million_tokens, gpu_figure, kv_bytes_per_token
from .units import BYTES_PER_GB, FLOP_PER_TFLOP, SECONDS_PER_HOUR, TOKENS_PER_MILLION

# the ways to build on a candidate: (kind, label)
KINDS = (("lora", "LoRA fine-tune"), ("finetune", "Full fine-tune"), ("scratch", "Train from scratch"))


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


class Candidate(ServedModel):
    """A base model to build on: its size and the shape serving needs, from its config.json."""

    id: str = Field(pattern=ID_PATTERN)


CANDIDATE_KEYS = ("finetune_tokens", "mfu", "peak_tflops", "flop_per_param_token", "tokens_per_param",
                  "lora_compute_share", "fixed_cost")


class Scope(Strict):
    features: list[Feature] = Field(default_factory=list, max_length=MAX_ENTRIES)
    candidates: list[Candidate] = Field(default_factory=list, max_length=MAX_ENTRIES)
    finetune_tokens: Annotated[Num, num(0, 1e15, unit="tokens", description="one fine-tune's training tokens "
                                                                           "(examples x tokens x epochs); also a "
                                                                           "from-scratch model's post-training")] \
        | None = None
    mfu: Annotated[Num, num(0, 1, gt=True, unit="share of peak", lowers_cost=True,
                            description="of the candidates' training runs")] | None = None
    peak_tflops: Annotated[Num, num(0, 1e6, gt=True, unit="TFLOP/s", lowers_cost=True,
                                    description="serving GPU's dense BF16 peak; default the catalog's")] | None = None
    flop_per_param_token: Annotated[Num, num(0, 1e3, gt=True, unit="FLOP")] = Num.of(6)
    tokens_per_param: Annotated[Num, num(0, 1e4, unit="tokens", description="a from-scratch model's training "
                                                                            "tokens per parameter")] = Num.of(20)
    lora_compute_share: Annotated[Num, num(0, 1, gt=True, unit="share", description="LoRA's GPU time as a share "
                                                                                    "of a full fine-tune's")] \
        = Num.of(0.8)
    fixed_cost: Annotated[Num, num(0, 1e12, unit="money", description="what any own model costs besides its "
                                                                      "training compute: team, data, evaluation")] \
        = Num.of(0)
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
    for i, candidate in enumerate(scope.candidates):
        cells += list(walk(candidate, ("scope", "candidates", i), (f"{SECTION.input_prefix}{candidate.id}",),
                           candidate.name or candidate.id))
    if scope.candidates:
        serving = getattr(plan, "serving", None)
        gpu = None if serving is None else lookup(serving.gpu)
        if scope.peak_tflops is None and gpu is not None:  # the catalog's peak, as an input finance sees
            peak = Num.of(gpu.dense_bf16_tflops)
            cells.append(InputCell(f"{SECTION.input_prefix}peak_tflops", ("scope", "peak_tflops"),
                                   "scope peak tflops", peak, bounds_of(Scope, "peak_tflops"), f"catalog: {gpu.id}"))
        cells += [cell for cell in walk(scope, ("scope",), (SECTION.input_prefix.rstrip("_"),), "scope")
                  if cell.path[1] in CANDIDATE_KEYS]
    return cells


def validate(plan: Plan) -> None:
    scope = SECTION.of(plan)
    if scope is None:
        return
    serving = getattr(plan, "serving", None)
    if serving is None:
        raise ValueError("`scope`: needs a `serving` section (the GPU and the months its volume is served on)")
    if not scope.candidates:
        return
    ids = [c.id for c in scope.candidates]
    for i, cid in enumerate(ids):
        if cid in ids[:i]:
            raise ValueError(f"`scope.candidates[{i}].id`: `{cid}` is taken by another candidate; ids are unique")
    for key in ("finetune_tokens", "mfu"):
        if getattr(scope, key) is None:
            raise ValueError(f"`scope.{key}`: give it with `candidates` (each candidate's fine-tune and training "
                             "runs need it)")
    if scope.peak_tflops is None and lookup(serving.gpu) is None:
        raise ValueError(f"`scope.peak_tflops`: the catalog has no peak for GPU `{serving.gpu}`: give it")
    for key in ("context_tokens", "concurrent_sequences"):
        if getattr(serving, key) is None:
            raise ValueError(f"`serving.{key}`: give it with `scope.candidates` (each candidate's KV cache is per "
                             "token of context, per sequence)")


SECTION = Section("scope", Scope | None, None, "Scope", "scp_", input_cells, validate=validate)


# --- the reference rule -------------------------------------------------------------------

def growth_sum(months: Any, growth: Any) -> Any:
    """The months' requests as a multiple of the first month's: n, or ((1 + g)^n - 1) / g. On numbers, or on
    each sample of the arrays `simulate` runs this rule on."""
    if not hasattr(growth, "shape"):
        return months if growth == 0 else ((1 + growth) ** months - 1) / growth
    none = growth == 0
    some = growth + none  # 1 where there is no growth: its term is dropped
    return none * months + ~none * (((1 + some) ** months - 1) / some)


def ratio_or_zero(part: Any, whole: Any) -> Any:
    """part / whole, 0 where whole is 0 (numbers, or each sample of an array)."""
    if hasattr(whole, "shape"):
        some = whole > 0
        return some * part / (whole + ~some)
    return part / whole if whole > 0 else 0.0 * part


def _minimum(a: Any, b: Any) -> Any:
    """min(a, b) of numbers, or of each sample of an array."""
    if hasattr(a, "shape") or hasattr(b, "shape"):
        return b + (a - b).clip(max=0.0)
    return min(a, b)


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
        n = _minimum(served if feature.months is None else feature.months, served)
        requests = feature.requests_per_month * growth_sum(n, feature.growth)
        into = into + requests * feature.input_tokens_per_request
        out = out + requests * feature.output_tokens_per_request
    return ratio_or_zero(into, served), ratio_or_zero(out, served)


def reference(view: MarketView) -> dict[str, float]:
    return {}


def peak_tflops(plan: Any) -> float:
    scope = plan.scope
    if scope.peak_tflops is not None:
        return scope.peak_tflops
    gpu = lookup(plan.serving.gpu)
    if gpu is None:
        raise LookupError(f"no catalog peak for `{plan.serving.gpu}`")
    return gpu.dense_bf16_tflops


def candidate_figures(plan: Any, price: float, tokens: float) -> list[dict[str, Any]]:
    """Per candidate of a resolved plan, at `price` a GPU-hour and `tokens` a month: each way's FLOP and
    development cost, its memory per replica, decode bound, cost per million tokens and serving a month."""
    scope, serving = plan.scope, plan.serving
    per_hour = peak_tflops(plan) * FLOP_PER_TFLOP * scope.mfu * SECONDS_PER_HOUR
    found = []
    for c in scope.candidates:
        full = scope.flop_per_param_token * c.params * scope.finetune_tokens
        flop = {"lora": scope.lora_compute_share * full, "finetune": full,
                "scratch": scope.flop_per_param_token * c.params * scope.tokens_per_param * c.params + full}
        memory = (c.params * c.bytes_per_value / BYTES_PER_GB
                  + kv_bytes_per_token(c) * serving.context_tokens * serving.concurrent_sequences / BYTES_PER_GB)
        decode = serving.concurrent_sequences * gpu_figure(serving, "memory_gb_per_s") / memory
        per_million = cost_per_million_tokens(decode, price)
        found.append({"id": c.id, "name": c.name or c.id, "flop": flop,
                      "development": {kind: scope.fixed_cost + f / per_hour * price for kind, f in flop.items()},
                      "memory_gb": memory, "decode": decode, "per_million": per_million,
                      "serving_per_month": tokens / TOKENS_PER_MILLION * per_million})
    return found


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
