"""Speed of `simulate` and `sensitivity` (the reference model on numpy arrays), templates and portfolios.

    python benchmarks/bench_ranges.py [--samples 100000] [--repeat 5] [--sizes 10x2,40x4,100x5]

In-process, after one warm-up run: the time of the computation itself (numpy imported, plan loaded),
the median of `--repeat` runs, and the time of one whole `budgetbook simulate` process for scale.
Prints a table; no assertion (tests never time anything).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402
from portfolio import portfolio_plan  # noqa: E402

from budgetbook.planfile.loader import load_plan, plan_from_text, template_names  # noqa: E402
from budgetbook.ranges.engine import ranged_inputs  # noqa: E402
from budgetbook.ranges.sensitivity import all_sensitivities  # noqa: E402
from budgetbook.ranges.simulate import simulate  # noqa: E402


def median_time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def process_time(plan_arg: str, samples: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from budgetbook.cli import run; run()", "simulate", plan_arg,
                    "--samples", str(samples), "--format", "json"], check=True, capture_output=True,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="10x2,40x4,100x5")
    args = parser.parse_args()
    cases = [(name, load_plan(name), name) for name in template_names()]
    for size in filter(None, args.sizes.split(",")):
        workloads, markets = (int(n) for n in size.split("x"))
        text = yaml.safe_dump(portfolio_plan(workloads, markets), sort_keys=False)
        path = Path(f"/tmp/bench_ranges_{size}.yaml")
        path.write_text(text, encoding="utf-8")
        cases.append((f"portfolio {size}", plan_from_text(text, str(path)), str(path)))
    print(f"simulate: {args.samples:,} samples, triangular; sensitivity: every market; medians of {args.repeat}")
    print(f"{'plan':<20} {'markets':>7} {'ranged':>7} | {'simulate s':>10} {'sensitivity s':>13} | "
          f"{'whole process s':>15}")
    for name, plan, plan_arg in cases:
        sim = median_time(lambda plan=plan: simulate(plan, args.samples, 0), args.repeat)
        sens = median_time(lambda plan=plan: all_sensitivities(plan), args.repeat)
        whole = process_time(plan_arg, args.samples)
        print(f"{name:<20} {len(plan.markets):>7} {len(ranged_inputs(plan)):>7} | {sim:>10.3f} {sens:>13.3f} | "
              f"{whole:>15.2f}")


if __name__ == "__main__":
    main()
