"""Peak memory and time of `simulate` at the documented maximum, `--samples 10000000` (issue 27 item 6).

    python benchmarks/bench_simulate_memory.py [--samples 10000000] [--plans pretrain-7b,own-vs-rent,longest]

Each run is one whole `budgetbook simulate PLAN --samples N --format json` process; its peak resident
set size is the kernel's (`getrusage(RUSAGE_CHILDREN).ru_maxrss` of a fresh child per run). `longest` is
the longest schedules allowed (`LONGEST` below: a workload and a commitment from month 600 for 600
months). Prints a table; no assertion (tests never time anything). Measured on the 2-core build box
(load average 10-12 from other jobs, so the times are long), MiB:

    plan                 2026-12-01 before    2026-12-01 after    2026-12-02 (slices)
    pretrain-7b          1,078 MiB  32 s      247 MiB  44 s       249 MiB  57 s
    lab-year                                  251 MiB 112 s       247 MiB  60 s
    own-vs-rent                               312 MiB  74 s       246 MiB  80 s
    own-vs-rent --plot                                            275 MiB  77 s
    longest (100,000 samples)                 1,937 MiB 16 s      124 MiB  37 s
    longest                                                       275 MiB 720 s

(own-vs-rent and longest in the middle column: that code, measured 2026-12-02.)

2026-12-01: every market's float64 totals held, then stacked and copied by the percentile; after, two
markets' totals at a time at 10,000,000 samples, the draws made again from the seed for each further
pair (the JSON byte-identical). 2026-12-02: a chunk's line items computed a slice of samples at a time
(own-vs-rent held 90 MB of them a chunk, the longest schedules 1.9 GB) and its draws bounded
(`simulate.DRAWN_BYTES`); the JSON byte-identical again.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONGEST = """\
name: longest
start: 2026-01
markets:
  - {id: cloud, gpu_prices: {H100: {low: 1.5, base: 2.0, high: 3.0}}}
  - {id: neo, gpu_prices: {H100: {low: 1.0, base: 2.5, high: 3.0}}}
commitments:
  - {market: cloud, gpu: H100, gpus: 8, term_months: 600, start: 600,
     fallback_price_per_gpu_hour: {low: 2, base: 3, high: 4}}
workloads:
  - {id: train, gpu: H100, ideal_gpu_hours: {low: 100000, base: 200000, high: 400000}, utilization: 1.5,
     start: 600, months: 600}
people:
  roles: [{role: engineer, count: 1, months: 12, monthly_cost: 10000}]
"""

CHILD = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak(plan: str, samples: int) -> tuple[float, float]:
    """(peak MiB, seconds) of one simulate process, measured by a wrapper process of its own."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, sys.executable, "-m", "budgetbook", "simulate", plan,
                           "--samples", str(samples), "--format", "json"], check=True, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return int(done.stdout.strip()) / 1024, time.perf_counter() - start  # MiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--plans", default="pretrain-7b,own-vs-rent,longest")
    args = parser.parse_args()
    print(f"simulate --samples {args.samples:,} --format json, one process each")
    print(f"{'plan':<20} {'peak MiB':>9} {'seconds':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for plan in args.plans.split(","):
            spec = plan
            if plan == "longest":
                spec = str(Path(tmp) / "longest.yaml")
                Path(spec).write_text(LONGEST)
            mb, seconds = peak(spec, args.samples)
            print(f"{plan:<20} {mb:>9,.0f} {seconds:>9.1f}")


if __name__ == "__main__":
    main()
