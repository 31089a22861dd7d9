"""CPU seconds and peak memory of loading, `generate` and `check` of the largest plan the caps allow.

    python benchmarks/bench_largest.py [--workloads 200] [--markets 19]

The plan is `portfolio.py`'s (plus its hybrid: 19 markets make 20), written to a temporary folder;
each step runs in a fresh process under `/usr/bin/time -v`, which reports user+system CPU seconds
(what a busy machine disturbs least), wall seconds and the peak resident set. `load` is
`budgetbook show PLAN --json`'s loading alone: parsing, validating and laying the plan out to
refuse what a workbook cannot hold. Targets (issue 27 case 7): generate and check within 60 s and
400 MB on one core. The heaviest shape under the cap measured so far is `--workloads 470 --markets 7`
(269,732 cells; docs/scale.md).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOAD = "import sys; from budgetbook.planfile.loader import load_plan; load_plan(sys.argv[1])"


def timed(args: list[str], where: Path) -> tuple[float, float, float]:
    """(CPU s, wall s, peak MiB) of one fresh process, run in `where` (`python -m` puts the working
    folder before PYTHONPATH: run from a checkout, it would time that checkout whatever PYTHONPATH says)."""
    done = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True, env=os.environ, cwd=where)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")

    def field(label: str) -> str:
        found = re.search(rf"{re.escape(label)}: (.+)", done.stderr)
        assert found is not None, label
        return found.group(1).strip()

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return cpu, wall, int(field("Maximum resident set size (kbytes)")) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--markets", type=int, default=19)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plan, book = Path(tmp) / "largest.yaml", Path(tmp) / "largest.xlsx"
        text = subprocess.run([sys.executable, str(HERE / "portfolio.py"), "--workloads", str(args.workloads),
                               "--markets", str(args.markets)], capture_output=True, text=True, check=True).stdout
        plan.write_text(text)
        steps = {"load": [sys.executable, "-c", LOAD, str(plan)],
                 "generate": [sys.executable, "-m", "budgetbook", "generate", str(plan), "-o", str(book)],
                 "check": [sys.executable, "-m", "budgetbook", "check", str(book)]}
        print(f"{args.workloads} workloads x {args.markets + 1} markets")
        print(f"{'step':<10} {'CPU s':>7} {'wall s':>7} {'peak MiB':>9}")
        for step, command in steps.items():
            cpu, wall, peak = timed(command, Path(tmp))
            print(f"{step:<10} {cpu:>7.1f} {wall:>7.1f} {peak:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
