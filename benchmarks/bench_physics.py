"""What the physics of issue 13 costs: `plan_physics` (show's `workloads`), `plan_sanity` (the warnings, run
on every load) and `impossible` (the error check), in-process, on portfolio plans of growing size.

    python benchmarks/bench_physics.py [--sizes 10x2,100x5,500x6] [--repeat 5]

Prints a table: the median milliseconds of each over `--repeat` runs, and their share of `show --format json`
(load, reference model, JSON) on the same plan (`show` runs physics once, sanity twice, impossible once).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from portfolio import portfolio_plan  # noqa: E402
from timing import median_ms  # noqa: E402

from budgetbook.physics.model import plan_physics  # noqa: E402
from budgetbook.physics.sanity import impossible, plan_sanity  # noqa: E402
from budgetbook.planfile.loader import plan_from_data  # noqa: E402
from budgetbook.reference import compute_breakdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10x2,100x5,500x6")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'plan':>7} | {'physics ms':>10} {'sanity ms':>9} {'impossible ms':>13} | {'show json ms':>12} "
          f"{'physics share':>13}")
    for size in args.sizes.split(","):
        workloads, markets = (int(n) for n in size.split("x"))
        data = portfolio_plan(workloads, markets, roles=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = plan_from_data(data, size)

            def show(plan=plan, data=data) -> None:
                compute_breakdown(plan_from_data(data, size)).as_json()

            physics = median_ms(lambda: plan_physics(plan), args.repeat)
            sanity = median_ms(lambda: plan_sanity(plan), args.repeat)
            refused = median_ms(lambda: impossible(plan), args.repeat)
            whole = median_ms(show, max(1, args.repeat // 2))
        print(f"{size:>7} | {physics:10.1f} {sanity:9.1f} {refused:13.1f} | {whole:12.0f} "
              f"{(physics + 2 * sanity + refused) / whole:13.1%}")


if __name__ == "__main__":
    main()
