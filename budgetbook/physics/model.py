"""The physical figures of a plan: FLOPs, ideal and allocated GPU-hours, wall-clock days, implied MFU.

Rule, per workload (and per market, whose runs a hybrid may change), in the base case:

- FLOP per run = FLOP per parameter-token x parameters x tokens (6ND), where the workload gives
  its model (`flops`), as its source of hours or beside another one;
- the 6ND ideal GPU-hours per run = FLOP / (peak TFLOP/s at the workload's precision x 1e12) / 3600;
- ideal GPU-hours = the stated ideal hours, else the 6ND ideal; allocated GPU-hours as Compute
  has them (a cluster's GPUs x days x 24, reported hours, or ideal x utilization or / MFU);
- implied MFU = FLOP / (allocated GPU-hours per run x peak x 1e12 x 3600): the share of the peak
  the paid hours deliver; without a model, the MFU the plan states (ideal hours at peak / MFU);
  `mfu_source` says `default` where the plan states none and takes the evidence's (`plan.evidence`);
- wall-clock days per run = allocated GPU-hours per run / GPUs / 24, at the GPUs the workload
  runs on (`gpus`, or its cluster's); GPUs for a deadline = allocated GPU-hours per run /
  (`deadline_days` x 24).

Written apart from the Compute sheet's formulas (the same figures, by name, in the workbook):
tests hold the two against each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..lineitems.compute import efficiency_at_start, hours_per_run
from ..lineitems.markets import runs_on
from ..lineitems.scenario import Resolved
from ..lineitems.serving import physics_rows as serving_rows
from ..lineitems.units import FLOP_PER_TFLOP, HOURS_PER_DAY, SECONDS_PER_HOUR
from ..plan.catalog import lookup
from ..plan.model import Plan


@dataclass(frozen=True)
class RunPhysics:
    """One run of one workload in one scenario (market-independent)."""

    peak_tflops: float | None
    flop: float | None                      # per run, where the model is known
    flops_gpu_hours: float | None           # the 6ND ideal at peak, per run
    ideal_gpu_hours: float | None           # per run: stated, else the 6ND ideal
    allocated_gpu_hours: float              # per run
    mfu: float | None
    mfu_source: str | None                  # "implied" (from the model), "stated" or "default" (the evidence's)
    gpus: float | None
    days: float | None                      # wall-clock, per run
    deadline_days: float | None
    gpus_for_deadline: float | None


def _peak(workload: Any) -> float | None:
    if workload.peak_tflops is not None:
        return workload.peak_tflops
    gpu = lookup(workload.gpu)
    return None if gpu is None else gpu.peak(workload.precision)


def _source(workload: Any) -> str:
    """`stated` where the plan gives the MFU, `default` where it takes the evidence's (`plan.evidence`)."""
    return "stated" if workload.mfu_default is None else "default"


def run_physics(workload: Any) -> RunPhysics:
    """The physics of one run of a resolved workload (`Resolved(workload, scenario)`)."""
    ideal, allocated = hours_per_run(workload)
    peak = _peak(workload)
    flop = flops_hours = None
    if workload.flops is not None:
        flop = workload.flops.flops_per_param_token * workload.flops.params * workload.flops.tokens
        if peak:
            flops_hours = flop / (peak * FLOP_PER_TFLOP) / SECONDS_PER_HOUR
    if ideal is None and workload.ideal_gpu_hours is None:
        ideal = flops_hours  # a cluster or reported hours with a model: the model's ideal
    mfu, source = None, None
    if flops_hours is not None and allocated > 0:
        stated = workload.mfu is not None and workload.hours_given == "flops"
        mfu, source = flops_hours / allocated, _source(workload) if stated else "implied"
    elif workload.mfu is not None:  # at the run's start, where its efficiency has a trend
        mfu, source = workload.mfu / efficiency_at_start(workload), _source(workload)
    gpus = workload.gpus if workload.gpus is not None else (
        workload.cluster.gpus if workload.cluster is not None else None)
    days = allocated / gpus / HOURS_PER_DAY if gpus else None
    deadline = workload.deadline_days
    needed = allocated / (deadline * HOURS_PER_DAY) if deadline else None
    return RunPhysics(peak, flop, flops_hours, ideal, allocated, mfu, source, gpus, days, deadline, needed)


@dataclass(frozen=True)
class WorkloadPhysics:
    market: str
    workload: str
    gpu: str
    precision: str
    peak_tflops: float | None
    runs: float
    flop_per_run: float | None
    flops_gpu_hours_per_run: float | None
    ideal_gpu_hours_per_run: float | None
    allocated_gpu_hours_per_run: float
    ideal_gpu_hours: float | None       # all runs on this market
    allocated_gpu_hours: float          # all runs on this market
    utilization: float | None           # allocated / ideal
    mfu: float | None
    mfu_source: str | None
    gpus: float | None
    days_per_run: float | None
    deadline_days: float | None
    gpus_for_deadline: float | None
    mfu_note: str | None = None         # where the MFU is the evidence's default: "default: median of N ..."

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}  # asdict deep-copies: 3x slower


def plan_physics(plan: Plan, scenario: str = "base") -> list[WorkloadPhysics]:
    """A row per market and workload in a plan scenario (`base`, `low`, `high`), in the order of `show`'s figures."""
    rows = []
    resolved = Resolved(plan, scenario)
    per_run = [run_physics(workload) for workload in resolved.workloads]  # the same on every market
    for market in resolved.markets:
        for workload, run in zip(resolved.workloads, per_run, strict=True):
            runs = runs_on(workload, market)
            ideal = None if run.ideal_gpu_hours is None else run.ideal_gpu_hours * runs
            rows.append(WorkloadPhysics(
                market.id, workload.id, workload.gpu, workload.precision, run.peak_tflops, runs, run.flop,
                run.flops_gpu_hours, run.ideal_gpu_hours, run.allocated_gpu_hours, ideal,
                run.allocated_gpu_hours * runs,
                run.allocated_gpu_hours / run.ideal_gpu_hours if run.ideal_gpu_hours else None,
                run.mfu, run.mfu_source, run.gpus, run.days, run.deadline_days, run.gpus_for_deadline,
                None if workload.mfu_default is None else workload.mfu_default.note))
    return rows


# the physical figures `show` prints and `check` holds the Compute sheet to:
# (json key, defined-name suffix on the Compute sheet, what it is)
PRINTED = (
    ("flop_per_run", "flop", "FLOP per run (6ND)"),
    ("ideal_gpu_hours_per_run", "ideal", "ideal GPU-hours per run"),
    ("allocated_gpu_hours", "alloc", "allocated GPU-hours (all runs)"),
    ("mfu", "mfu", "MFU (implied, or as stated)"),
    ("days_per_run", "days", "wall-clock days per run"),
    ("gpus_for_deadline", "gpus_needed", "GPUs for the deadline"),
)


def physics_rows(plan: Plan, scenario: str = "base") -> Iterator[tuple[str, str, str, str, float]]:
    """(name, item, market, label, value) of every physical figure `show` prints (base case), or the Compute
    sheet holds in a plan scenario (`low`/`high`: the workbook's scenario switch set to best/worst)."""
    labels = {w.id: w.label or w.id for w in plan.workloads}
    for row in plan_physics(plan, scenario):
        for key, suffix, what in PRINTED:
            value = getattr(row, key)
            if value is not None:
                yield (f"cmp_{row.workload}_{suffix}_{row.market}", key, row.market,
                       f"{labels[row.workload]}: {what}", float(value))
    yield from serving_rows(plan, scenario)  # the Serving sheet's physics: KV cache, memory, throughput
