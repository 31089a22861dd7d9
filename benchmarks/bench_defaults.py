"""The MFU default against the published runs (issue 29): each run priced by the tool with its MFU left out.

    python benchmarks/bench_defaults.py [--format table|json]

For each published run (`plan/evidence.py`) a plan of one workload: its GPU, precision, active
parameters and tokens (`flops`), no `mfu`, no `utilization`. The loader gives it the evidence's
default MFU: the median of the *other* runs (the workload is that run, so it is left out) with
their 10th-90th percentiles as its range. The table: the run, its published GPU-hours, the
tool's estimate (base, low-high), the ratio estimate / published, and whether the published
hours fall inside the low-high range. Done (issue 29) when the median ratio lies in 0.85-1.15
and at least two thirds of the runs fall inside.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from budgetbook.lineitems.scenario import Resolved  # noqa: E402
from budgetbook.physics.model import run_physics  # noqa: E402
from budgetbook.plan.evidence import PUBLISHED_RUNS, PublishedRun  # noqa: E402
from budgetbook.planfile.loader import plan_from_data  # noqa: E402

TARGET_RATIO = (0.85, 1.15)
TARGET_INSIDE = 2 / 3


def run_plan(run: PublishedRun) -> dict:
    return {"name": f"bench-{run.id.replace('_', '-')}",
            "markets": [{"id": "cloud", "gpu_prices": {run.gpu: 1}}],
            "workloads": [{"id": "run", "gpu": run.gpu, "precision": run.precision,
                           "flops": {"params": run.active_params, "tokens": run.tokens}}]}


def row(run: PublishedRun) -> dict:
    workload = plan_from_data(run_plan(run), run.id).workloads[0]
    hours = {s: run_physics(Resolved(workload, s)).allocated_gpu_hours for s in ("low", "base", "high")}
    default = workload.mfu_default
    return {"run": run.model, "published_gpu_hours": run.gpu_hours, "estimate": hours["base"],
            "low": hours["low"], "high": hours["high"], "ratio": hours["base"] / run.gpu_hours,
            "inside": hours["low"] <= run.gpu_hours <= hours["high"], "default_mfu": default.num.base,
            "left_out": default.without, "runs": default.runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    rows = [row(run) for run in PUBLISHED_RUNS]
    median = statistics.median(r["ratio"] for r in rows)
    inside = sum(r["inside"] for r in rows)
    verdict = TARGET_RATIO[0] <= median <= TARGET_RATIO[1] and inside >= TARGET_INSIDE * len(rows)
    if args.format == "json":
        print(json.dumps({"rows": rows, "median_ratio": median, "inside": inside, "runs": len(rows),
                          "done": verdict}, indent=2))
        return
    print(f"{'run':<24} {'published GPU-h':>15} {'default GPU-h':>13} {'low-high':>23} {'ratio':>6} inside "
          "(MFU default, of runs)")
    for r in rows:
        print(f"{r['run']:<24} {r['published_gpu_hours']:>15,.0f} {r['estimate']:>13,.0f} "
              f"{r['low']:>11,.0f}-{r['high']:<11,.0f} {r['ratio']:>6.2f} {'yes' if r['inside'] else 'no':<6} "
              f"({r['default_mfu']:.3f}, {r['runs']})")
    print(f"median ratio {median:.2f} (target {TARGET_RATIO[0]}-{TARGET_RATIO[1]}); inside {inside} of {len(rows)} "
          f"(target {TARGET_INSIDE:.0%}): {'done' if verdict else 'NOT done'}")


if __name__ == "__main__":
    main()
