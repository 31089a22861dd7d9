"""Peak memory and time of `simulate` at the documented maximum, `--samples 10000000` (issue 27 item 6).

    python benchmarks/bench_simulate_memory.py [--samples 10000000] [--plans pretrain-7b,lab-year]

Each run is one whole `budgetbook simulate PLAN --samples N --format json` process; its peak resident
set size is the kernel's (`getrusage(RUSAGE_CHILDREN).ru_maxrss` of a fresh child per run). Prints a
table; no assertion (tests never time anything). Measured on the 2-core build box, 2026-12-01:

    plan                 before               after (alone)     after (box loaded by other jobs)
    pretrain-7b          1,078 MB  32 s       247 MB  44 s      242 MB   76 s
    lab-year                                                    251 MB  112 s
    finetune-13b-lora                                           224 MB   22 s

Before: every market's float64 totals held, then stacked and copied by the percentile. After: two
markets' totals at a time at 10,000,000 samples, the draws made again from the seed for each further
pair; the JSON is byte-identical.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak(plan: str, samples: int) -> tuple[float, float]:
    """(peak MB, seconds) of one simulate process, measured by a wrapper process of its own."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, sys.executable, "-m", "budgetbook", "simulate", plan,
                           "--samples", str(samples), "--format", "json"], check=True, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return int(done.stdout.strip()) / 1024, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--plans", default="pretrain-7b,lab-year,finetune-13b-lora")
    args = parser.parse_args()
    print(f"simulate --samples {args.samples:,} --format json, one process each")
    print(f"{'plan':<20} {'peak MB':>9} {'seconds':>9}")
    for plan in args.plans.split(","):
        mb, seconds = peak(plan, args.samples)
        print(f"{plan:<20} {mb:>9,.0f} {seconds:>9.1f}")


if __name__ == "__main__":
    main()
