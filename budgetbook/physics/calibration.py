"""Published training runs, and where a plan's workloads sit against them (`budgetbook calibrate`).

The runs themselves, and the default MFU taken from them, are the plan kit's
(`plan/evidence.py`); this module places a plan against them. A plan's FP8 workload is compared
at its BF16-equivalent MFU (the evidence is against the BF16 peak).

A workload's percentile is the share of published runs whose implied MFU is at most its own:
10 % means nine in ten published runs did better than the plan assumes, 100 % that the plan
assumes more than any of them achieved.
A workload that is a published run (`evidence.same_run`) is ranked without that run
(leave-one-out: `without` in its row), so no run counts itself.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ..plan.catalog import lookup
from ..plan.evidence import PUBLISHED_RUNS, PublishedRun, evidence_mfu, published_mfus, same_run

__all__ = ["PUBLISHED_RUNS", "PublishedRun", "calibrate", "percentile", "published_mfus"]


def percentile(mfu: float, without: str | None = None) -> float:
    """The share of published runs (0-100) whose implied MFU is at most `mfu`; `without` a run's id, of the
    others (a workload that is a published run is ranked without itself)."""
    mfus = published_mfus(without)
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
    without: str | None = None  # the published run the workload is, left out of its ranking
    mfu_note: str | None = None  # where the MFU is the evidence's default: "default: median of N published runs"


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
    by_id = {w.id: w for w in plan.workloads}
    for row in plan_physics(plan):
        if row.workload in seen:
            continue  # hours per run do not depend on the market
        seen.add(row.workload)
        gpu = lookup(row.gpu)
        mfu_bf16 = row.mfu
        if row.mfu is not None and row.peak_tflops and gpu is not None:
            mfu_bf16 = row.mfu * row.peak_tflops / gpu.dense_bf16_tflops
        flops = by_id[row.workload].flops
        run = None if flops is None else same_run(row.gpu, flops.params.base, flops.tokens.base)
        without = None if run is None else run.id
        pct = None if mfu_bf16 is None else percentile(mfu_bf16, without)
        rows.append(Placement(row.workload, row.gpu, row.precision, row.mfu, mfu_bf16, row.mfu_source,
                              row.utilization, pct,
                              _verdict(pct, row.utilization) + ("" if run is None else f" (ranked without {run.model}: "
                                                                 "the workload is that run)"),
                              without, row.mfu_note))
    mfus = published_mfus()
    default = evidence_mfu().num
    return {"plan": plan.name,
            "evidence": {"runs": len(mfus), "mfu_min": mfus[0], "mfu_median": statistics.median(mfus),
                         "mfu_max": mfus[-1], "mfu_p10": default.low, "mfu_p90": default.high},
            "workloads": [r.as_dict() for r in rows],
            "published_runs": [run.as_dict() for run in PUBLISHED_RUNS]}
