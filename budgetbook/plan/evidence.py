"""The evidence: published training runs, their implied MFU, and the default MFU a plan takes from them.

Each run: its model (parameters, active parameters per token, tokens), GPU and precision, and
the GPU-hours its authors published, or the cluster x days they published. Its implied MFU is
6 x active parameters x tokens / (GPU-hours x 3600 x the GPU's dense BF16 peak): the share of
the peak the paid hours delivered. MFU is taken against the dense BF16 peak for every run, FP8
ones included (DeepSeek-V3 trains in FP8 mixed precision): the BF16 peak is the common yardstick.

A workload that gives its hours by `flops` or `ideal_gpu_hours` and neither `mfu` nor
`utilization` takes the evidence's MFU (issue 29): the median of the published runs, with
their 10th-90th percentiles as its range (linear interpolation between the sorted runs, as
`statistics.quantiles(method="inclusive")`). P10-P90 is the usual estimating band: on the runs
themselves, each priced without itself (`benchmarks/bench_defaults.py`), 8 of 12 fall inside
it, where the middle half (P25-P75) holds 5. A workload that *is* a published run (same GPU,
active parameters and tokens within 2 %) is priced and ranked without that run (leave-one-out),
so no run vouches for itself. At `precision: fp8` the MFU is against the FP8 peak, twice the
BF16 one, so the default is the evidence x BF16 peak / FP8 peak: the same hours the BF16
evidence gives (an MFU taken from BF16 runs would halve them).

The set grows by a line: a `PublishedRun` with its source and the date it was read.
Sources read 2026-12-01; the first nine runs are the nine of issue 13.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from .catalog import CATALOG, lookup
from .numbers import Num

# definitions, as `lineitems/units.py` has them (which sits above the plan kit)
SECONDS_PER_HOUR, HOURS_PER_DAY, FLOP_PER_TFLOP = 3600, 24, 1e12
DEFAULT_BAND = (0.10, 0.90)     # the default MFU's range: the 10th and 90th percentiles of the runs
SAME_RUN = 0.02                 # a workload within 2 % of a run's active parameters and tokens, on its GPU, is it


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


def published_mfus(without: str | None = None) -> list[float]:
    """The runs' implied MFUs, sorted; `without` a run's id, the others'."""
    return sorted(run.mfu for run in PUBLISHED_RUNS if run.id != without)


def same_run(gpu: str, active_params: float, tokens: float) -> PublishedRun | None:
    """The published run a workload is (its GPU, active parameters and tokens), if any."""
    found = lookup(gpu)
    for run in PUBLISHED_RUNS:
        if (found is not None and found.id == run.gpu and abs(active_params / run.active_params - 1) <= SAME_RUN
                and abs(tokens / run.tokens - 1) <= SAME_RUN):
            return run
    return None


def _quantile(values: list[float], share: float) -> float:
    """Linear interpolation between sorted values (`statistics.quantiles`' inclusive method, at any share)."""
    at = (len(values) - 1) * share
    below = int(at)
    above = min(below + 1, len(values) - 1)
    return values[below] + (values[above] - values[below]) * (at - below)


@dataclass(frozen=True)
class DefaultMfu:
    """The MFU a workload takes when it states none: the evidence's median with its P10-P90 range."""

    num: Num            # against the workload's peak (its precision's)
    runs: int           # published runs it comes from
    without: str | None  # the run left out: the workload is that run
    scale: float        # BF16 peak / the peak at the workload's precision (1 at BF16)

    @property
    def note(self) -> str:
        left = "" if self.without is None else f", without {self.without} (the workload is that run)"
        fp8 = "" if self.scale == 1 else f", x {self.scale:.3g} (BF16 peak / FP8 peak: the evidence is at BF16)"
        return (f"default: median of {self.runs} published runs, {self.num.base:.3f} "
                f"({self.num.low:.3f}-{self.num.high:.3f}, their 10th-90th percentiles{left}{fp8}; "
                "`budgetbook calibrate`)")


def evidence_mfu(without: str | None = None, scale: float = 1.0) -> DefaultMfu:
    """The evidence's median MFU and its P10-P90 range, at a peak `1 / scale` times the BF16 one."""
    mfus = published_mfus(without)
    low, high = (_quantile(mfus, share) * scale for share in DEFAULT_BAND)
    return DefaultMfu(Num(statistics.median(mfus) * scale, low, high, True, True), len(mfus), without, scale)


def default_mfu(workload: Any) -> DefaultMfu:
    """The default MFU of a workload (the plan model's `Workload`) that states neither `mfu` nor `utilization`."""
    gpu = lookup(workload.gpu)
    scale = 1.0
    if workload.precision != "bf16":
        at = gpu.peak(workload.precision) if gpu is not None else None
        scale = gpu.dense_bf16_tflops / at if gpu is not None and at else 0.5  # FP8 peaks are twice BF16's
    run = None
    if workload.flops is not None:
        run = same_run(workload.gpu, workload.flops.params.base, workload.flops.tokens.base)
    return evidence_mfu(None if run is None else run.id, scale)
