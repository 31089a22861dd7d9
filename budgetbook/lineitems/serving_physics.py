"""Serving from physics: the served model's KV cache, memory and GPUs per replica, and its decode bound.

Rule, for a served model of a given shape (`serving.model`: parameters, layers, KV heads, head
dimension, bytes per value; read from the model's config.json):

- KV-cache bytes per token = 2 (a key and a value) x layers x KV heads x head dimension x bytes per value;
- memory per replica (GB) = weights (parameters x bytes per value / 1e9) + the KV cache of
  `concurrent_sequences` sequences of `context_tokens` each (bytes per token x context x sequences / 1e9);
- GPUs per replica = memory per replica / the GPU's memory (`memory_gb`, default the catalog's), rounded up;
- decode bound, tokens per second per GPU = concurrent sequences x HBM bandwidth (`memory_gb_per_s`, default
  the catalog's) / memory per replica: a decode step makes one token per sequence and reads the weights and
  the whole KV cache once; split over a replica's GPUs (tensor parallel), each GPU reads its share at its own
  bandwidth, so the bound per GPU does not depend on how many GPUs a replica has. It is an upper bound
  (compute, kernels and a cache not yet full are left out): a measured `tokens_per_second_per_gpu` overrides it;
- cost per million tokens = the serving market's price per GPU-hour / (tokens per second per GPU x 3600) x 1e6.

This module holds the served model's plan keys, the reference rule and its Serving-sheet rows, side by side;
`serving.py` reads the throughput it gives.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from pydantic import Field

from ..plan.catalog import lookup
from ..plan.inputs import InputCell, bounds_of
from ..plan.model import Strict
from ..plan.numbers import Num, num
from ..sheetkit import style as st
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet
from .units import BYTES_PER_GB, KV_TENSORS, SECONDS_PER_HOUR, TOKENS_PER_MILLION


class ServedModel(Strict):
    """The shape of the model served, as its config.json gives it (`num_hidden_layers`, `num_key_value_heads`,
    `head_dim` or hidden size / attention heads, `torch_dtype`)."""

    name: str = Field("", max_length=200)
    params: Annotated[Num, num(0, 1e15, gt=True, unit="parameters", description="all parameters, for the "
                                                                                "weights' memory")]
    layers: Annotated[Num, num(0, 1e4, gt=True, unit="layers")]
    kv_heads: Annotated[Num, num(0, 1e4, gt=True, unit="heads", description="key-value heads (grouped-query "
                                                                           "attention: fewer than query heads)")]
    head_dim: Annotated[Num, num(0, 1e5, gt=True, unit="values")]
    bytes_per_value: Annotated[Num, num(0, 16, gt=True, unit="bytes", description="of a weight and a KV-cache "
                                                                                 "value: 2 for bf16")] = Num.of(2)


# the Serving section's keys this module reads (`serving.Serving` declares them)
CONTEXT = Annotated[Num, num(0, 1e8, gt=True, unit="tokens", description="context length of one sequence, "
                                                                         "for its KV cache")]
SEQUENCES = Annotated[Num, num(0, 1e6, gt=True, unit="sequences", lowers_cost=True,
                               description="sequences decoded at once per replica (the batch)")]
MEMORY = Annotated[Num, num(0, 1e5, gt=True, unit="GB", description="one GPU's memory; default the catalog's")]
BANDWIDTH = Annotated[Num, num(0, 1e7, gt=True, unit="GB/s", lowers_cost=True,
                               description="one GPU's HBM bandwidth; default the catalog's")]
PHYSICS_KEYS = ("context_tokens", "concurrent_sequences", "memory_gb", "memory_gb_per_s")


def check(serving: Any) -> None:
    """The keys a served model needs (raised as the section's ValueError); `check_keys` sees the scope too."""
    if serving.model is None:
        if serving.tokens_per_second_per_gpu is None:
            raise ValueError("give `tokens_per_second_per_gpu` (measured), or `model` with `context_tokens` and "
                             "`concurrent_sequences` to bound it from the GPU's memory bandwidth")
        return
    for key in ("context_tokens", "concurrent_sequences"):
        if getattr(serving, key) is None:
            raise ValueError(f"give `{key}` with `model`: the KV cache is per token of context, per sequence")


def check_keys(serving: Any, candidates: bool) -> None:
    """The physics keys apply with a served model or the scope's candidates; the GPU's memory and bandwidth are
    the catalog's or given (raised as ValueError naming the key path)."""
    if serving.model is None and not candidates:
        given = [key for key in PHYSICS_KEYS if getattr(serving, key) is not None]
        if given:
            raise ValueError(f"`serving.{given[0]}`: `{given[0]}` applies with `model` (the served model's shape) "
                             "or `scope.candidates`")
        return
    gpu = lookup(serving.gpu)
    for key, what in (("memory_gb", "memory"), ("memory_gb_per_s", "HBM bandwidth")):
        if getattr(serving, key) is None and (gpu is None or not getattr(gpu, key)):
            raise ValueError(f"`serving.{key}`: the catalog has no {what} for GPU `{serving.gpu}`: give it")


def catalog_cells(serving: Any, candidates: bool = False) -> list[InputCell]:
    """The catalog's memory and bandwidth of the serving GPU, as inputs (finance sees and may edit them), where
    the plan gives a model (or the scope candidates) and not them."""
    if serving.model is None and not candidates:
        return []
    gpu = lookup(serving.gpu)
    cells = []
    for key, label in (("memory_gb", "memory GB"), ("memory_gb_per_s", "HBM bandwidth GB/s")):
        if getattr(serving, key) is None and gpu is not None:
            value = float(getattr(gpu, key))
            cells.append(InputCell(f"srv_{key}", ("serving", key), f"serving GPU {label}",
                                   Num(value, value, value, False, key == "memory_gb_per_s"),
                                   bounds_of(type(serving), key), f"catalog: {gpu.id}"))
    return cells


# --- the reference rule -------------------------------------------------------------------

def gpu_figure(serving: Any, key: str) -> float:
    """The serving GPU's memory (GB) or bandwidth (GB/s): the plan's, else the catalog's."""
    given = getattr(serving, key)
    if given is not None:
        return given
    gpu = lookup(serving.gpu)
    if gpu is None:
        raise LookupError(f"no catalog {key} for `{serving.gpu}`")
    return float(getattr(gpu, key))


def kv_bytes_per_token(model: Any) -> Any:
    return KV_TENSORS * model.layers * model.kv_heads * model.head_dim * model.bytes_per_value


def memory_per_replica_gb(serving: Any) -> Any:
    model = serving.model
    weights = model.params * model.bytes_per_value / BYTES_PER_GB
    cache = kv_bytes_per_token(model) * serving.context_tokens * serving.concurrent_sequences / BYTES_PER_GB
    return weights + cache


def decode_bound(serving: Any) -> Any:
    """Tokens per second per GPU that the HBM bandwidth allows (plain arithmetic: runs on arrays too)."""
    return serving.concurrent_sequences * gpu_figure(serving, "memory_gb_per_s") / memory_per_replica_gb(serving)


def tokens_per_second_per_gpu(serving: Any) -> Any:
    """The throughput serving is priced at: the measured one where given, else the decode bound."""
    if serving.tokens_per_second_per_gpu is not None:
        return serving.tokens_per_second_per_gpu
    return decode_bound(serving)


@dataclass(frozen=True)
class ServingPhysics:
    kv_bytes_per_token: float
    weights_gb: float
    kv_cache_gb: float
    memory_per_replica_gb: float
    gpus_per_replica: int
    decode_tokens_per_second_per_gpu: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def serving_physics(serving: Any) -> ServingPhysics | None:
    """The physics of a resolved serving section (`Resolved`); None without a served model."""
    if serving is None or serving.model is None:
        return None
    model = serving.model
    kv = kv_bytes_per_token(model)
    memory = memory_per_replica_gb(serving)
    return ServingPhysics(kv, model.params * model.bytes_per_value / BYTES_PER_GB,
                          kv * serving.context_tokens * serving.concurrent_sequences / BYTES_PER_GB, memory,
                          math.ceil(memory / gpu_figure(serving, "memory_gb")), decode_bound(serving))


def cost_per_million_tokens(speed: float, price: float) -> float:
    return price / (speed * SECONDS_PER_HOUR) * TOKENS_PER_MILLION


# --- the sheet ----------------------------------------------------------------------------

def physics_rows(sheet: CalcSheet, inp: Inputs, serving: Any) -> int:
    """The Serving sheet's rows from the model's shape to the tokens per second per GPU; returns that row."""
    if serving.model is None:
        return sheet.row("Tokens per second per GPU (measured)", "tokens/s",
                         inp.count_format(("serving", "tokens_per_second_per_gpu")), "={speed}", "svc_speed",
                         speed=inp[("serving", "tokens_per_second_per_gpu")])
    model = ("serving", "model")
    sheet.section(f"Served model: {serving.model.name or 'its shape'} (KV cache, memory, decode bound)")
    whole = inp.count_format(*(model + (key,) for key in ("layers", "kv_heads", "head_dim", "bytes_per_value")))
    kv = sheet.row("KV-cache bytes per token (2 x layers x KV heads x head dim x bytes)", "bytes", whole,
                   "=k_kv_tensors*{layers}*{heads}*{dim}*{bytes}", "svc_kv_bytes", layers=inp[model + ("layers",)],
                   heads=inp[model + ("kv_heads",)], dim=inp[model + ("head_dim",)],
                   bytes=inp[model + ("bytes_per_value",)])
    weights = sheet.row("Weights (parameters x bytes / 1e9)", "GB", st.COUNT, "={params}*{bytes}/k_bytes_per_gb",
                        "svc_weights_gb", params=inp[model + ("params",)], bytes=inp[model + ("bytes_per_value",)])
    cache = sheet.row("KV cache per replica (bytes per token x context x sequences / 1e9)", "GB", st.COUNT,
                      "={kv}*{context}*{sequences}/k_bytes_per_gb", "svc_kv_gb", kv=kv,
                      context=inp[("serving", "context_tokens")], sequences=inp[("serving", "concurrent_sequences")])
    memory = sheet.row("Memory per replica (weights + KV cache)", "GB", st.DECIMALS, "={weights}+{cache}",
                       "svc_memory_gb", weights=weights, cache=cache)
    sheet.row("GPUs per replica (memory / GPU memory, rounded up)", "GPUs", st.WHOLE,
              "=ROUNDUP({memory}/{gpu},k_whole_digits)",
              "svc_gpus_per_replica", memory=memory, gpu=inp[("serving", "memory_gb")])
    bound = sheet.row("Decode bound per GPU (sequences x HBM GB/s / memory per replica)", "tokens/s", st.COUNT,
                      "={sequences}*{bandwidth}/{memory}", "svc_decode",
                      sequences=inp[("serving", "concurrent_sequences")],
                      bandwidth=inp[("serving", "memory_gb_per_s")], memory=memory)
    if serving.tokens_per_second_per_gpu is not None:
        return sheet.row("Tokens per second per GPU (measured: overrides the bound)", "tokens/s",
                         inp.count_format(("serving", "tokens_per_second_per_gpu")), "={speed}", "svc_speed",
                         speed=inp[("serving", "tokens_per_second_per_gpu")])
    return sheet.row("Tokens per second per GPU (the decode bound)", "tokens/s", st.COUNT, "={bound}", "svc_speed",
                     bound=bound)
