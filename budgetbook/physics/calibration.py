"""Published training runs, and where a plan's workloads sit against them (`budgetbook calibrate`).

Each run: its model (parameters, active parameters per token, tokens), GPU and precision, and
the GPU-hours its authors published, or the cluster x days they published. Its implied MFU is
6 x active parameters x tokens / (GPU-hours x 3600 x the GPU's dense BF16 peak): the share of
the peak the paid hours delivered. MFU is taken against the dense BF16 peak for every run, FP8
ones included (DeepSeek-V3 trains in FP8 mixed precision): the BF16 peak is the common yardstick,
so a plan's FP8 workload is compared at its BF16-equivalent MFU.

A workload's percentile is the share of published runs whose implied MFU is at most its own:
10 % means nine in ten published runs did better than the plan assumes, 100 % that the plan
assumes more than any of them achieved.

Sources read 2026-12-01; the first nine runs are the nine of issue 13.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ..lineitems.units import FLOP_PER_TFLOP, HOURS_PER_DAY, SECONDS_PER_HOUR
from ..plan.catalog import CATALOG, lookup


@dataclass(frozen=True)
class PublishedRun:
    id: str
    model: str
    params: float
    active_params: float            # per token: the same as params unless a mixture of experts
    tokens: float
    gpu: str                        # catalog id
    precision: str
    gpu_hours: float                # as published (or the published cluster x days x 24)
    source: str
    date: str                       # publication date
    cluster: tuple[float, float] | None = None   # (GPUs, days) where the authors published those

    @property
    def flop(self) -> float:
        return 6 * self.active_params * self.tokens

    @property
    def mfu(self) -> float:
        """Implied MFU against the dense BF16 peak."""
        peak = CATALOG[self.gpu].dense_bf16_tflops * FLOP_PER_TFLOP
        return self.flop / (self.gpu_hours * SECONDS_PER_HOUR * peak)

    @property
    def cluster_gpu_hours(self) -> float | None:
        return None if self.cluster is None else self.cluster[0] * self.cluster[1] * HOURS_PER_DAY

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "model": self.model, "params": self.params, "active_params": self.active_params,
                "tokens": self.tokens, "gpu": self.gpu, "precision": self.precision, "gpu_hours": self.gpu_hours,
                "cluster_gpus": None if self.cluster is None else self.cluster[0],
                "cluster_days": None if self.cluster is None else self.cluster[1],
                "flop": self.flop, "mfu": self.mfu, "source": self.source, "date": self.date}


LLAMA2 = "Llama 2 model card (github.com/meta-llama/llama, MODEL_CARD.md; Touvron et al., arXiv 2307.09288)"
LLAMA31 = "Llama 3.1 model card (github.com/meta-llama/llama-models, models/llama3_1/MODEL_CARD.md)"
LLAMA1 = "LLaMA, Touvron et al., arXiv 2302.13971, table 15 (GPU-hours per model)"

PUBLISHED_RUNS: tuple[PublishedRun, ...] = (
    PublishedRun("llama2_7b", "Llama 2 7B", 7e9, 7e9, 2e12, "A100", "bf16", 184_320, LLAMA2, "2023-07-18"),
    PublishedRun("llama2_13b", "Llama 2 13B", 13e9, 13e9, 2e12, "A100", "bf16", 368_640, LLAMA2, "2023-07-18"),
    PublishedRun("llama2_70b", "Llama 2 70B", 70e9, 70e9, 2e12, "A100", "bf16", 1_720_320, LLAMA2, "2023-07-18"),
    PublishedRun("llama31_8b", "Llama 3.1 8B", 8e9, 8e9, 15e12, "H100_SXM", "bf16", 1_460_000, LLAMA31,
                 "2024-07-23"),
    PublishedRun("llama31_70b", "Llama 3.1 70B", 70e9, 70e9, 15e12, "H100_SXM", "bf16", 7_000_000, LLAMA31,
                 "2024-07-23"),
    PublishedRun("llama31_405b", "Llama 3.1 405B", 405e9, 405e9, 15.6e12, "H100_SXM", "bf16", 30_840_000,
                 LLAMA31 + "; 15.6T tokens: The Llama 3 Herd of Models, arXiv 2407.21783", "2024-07-23"),
    PublishedRun("deepseek_v3", "DeepSeek-V3 (final run)", 671e9, 37e9, 14.8e12, "H800", "fp8", 2_788_000,
                 "DeepSeek-V3 technical report, arXiv 2412.19437: 2,664K pre-training + 119K context extension "
                 "+ 5K post-training H800 hours on a cluster of 2,048 H800", "2024-12-27"),
    PublishedRun("bloom_176b", "BLOOM 176B", 176e9, 176e9, 366e9, "A100", "bf16", 1_082_990,
                 "BigScience BLOOM, arXiv 2211.05100; 1,082,990 GPU-hours on 384 A100 80GB: Luccioni et al., "
                 "Estimating the carbon footprint of BLOOM, arXiv 2211.02001 (JMLR 2023)", "2022-11-03"),
    PublishedRun("llama1_65b", "LLaMA 65B", 65.2e9, 65.2e9, 1.4e12, "A100", "bf16", 1_022_362,
                 LLAMA1 + "; section 2.4: 1.4T tokens on 2,048 A100 80GB take approximately 21 days",
                 "2023-02-27", cluster=(2048, 21)),
    PublishedRun("llama1_7b", "LLaMA 7B", 6.7e9, 6.7e9, 1e12, "A100", "bf16", 82_432, LLAMA1, "2023-02-27"),
    PublishedRun("llama1_13b", "LLaMA 13B", 13.0e9, 13.0e9, 1e12, "A100", "bf16", 135_168, LLAMA1, "2023-02-27"),
    PublishedRun("llama1_33b", "LLaMA 33B", 32.5e9, 32.5e9, 1.4e12, "A100", "bf16", 530_432, LLAMA1, "2023-02-27"),
)


def published_mfus() -> list[float]:
    return sorted(run.mfu for run in PUBLISHED_RUNS)


def percentile(mfu: float) -> float:
    """The share of published runs (0-100) whose implied MFU is at most `mfu`."""
    mfus = published_mfus()
    return 100.0 * sum(1 for m in mfus if m <= mfu) / len(mfus)


@dataclass(frozen=True)
class Placement:
    workload: str
    gpu: str
    precision: str
    mfu: float | None           # at the workload's precision, as `show` has it
    mfu_bf16: float | None      # against the dense BF16 peak: what the evidence is in
    mfu_source: str | None
    utilization: float | None   # allocated / ideal GPU-hours
    percentile: float | None
    verdict: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _verdict(pct: float | None, utilization: float | None) -> str:
    if pct is None and utilization is not None:
        mfus = published_mfus()
        return (f"{utilization:.2f}x over stated ideal hours; published runs pay {1 / mfus[-1]:.1f}-"
                f"{1 / mfus[0]:.1f}x over the 6ND ideal at peak: add `flops` (params, tokens) to judge")
    if pct is None:
        return "no model (params, tokens) to judge: add `flops` beside the hours"
    if pct >= 100:
        return "above every published run: optimistic, budgets come in low"
    if pct > 75:
        return "in the top quarter of published runs: optimistic"
    if pct < 10:
        return "below nearly every published run: pessimistic, or check params and tokens"
    return "within the published range"


def calibrate(plan: Any) -> dict[str, Any]:
    """Where each workload's MFU sits against the published runs (base case; one row per workload)."""
    from .model import plan_physics  # on first use, not at import: loads openpyxl

    rows, seen = [], set()
    for row in plan_physics(plan):
        if row.workload in seen:
            continue  # hours per run do not depend on the market
        seen.add(row.workload)
        gpu = lookup(row.gpu)
        mfu_bf16 = row.mfu
        if row.mfu is not None and row.peak_tflops and gpu is not None:
            mfu_bf16 = row.mfu * row.peak_tflops / gpu.dense_bf16_tflops
        pct = None if mfu_bf16 is None else percentile(mfu_bf16)
        rows.append(Placement(row.workload, row.gpu, row.precision, row.mfu, mfu_bf16, row.mfu_source,
                              row.utilization, pct, _verdict(pct, row.utilization)))
    mfus = published_mfus()
    return {"plan": plan.name,
            "evidence": {"runs": len(mfus), "mfu_min": mfus[0], "mfu_median": statistics.median(mfus),
                         "mfu_max": mfus[-1]},
            "workloads": [r.as_dict() for r in rows],
            "published_runs": [run.as_dict() for run in PUBLISHED_RUNS]}
