"""What the Fit sheet costs: its live rows' reference (`fit_book.live_rows`) and the values it computes
(`fit_book.computed`: `fit` on every market), in-process, on portfolio plans with a `fit:` budget.

    python benchmarks/bench_fit_sheet.py [--sizes 10x2,100x5] [--solve tokens,params] [--repeat 3]

Prints the median milliseconds of each over `--repeat` runs. `computed` runs when a workbook is written and
when `check` audits one (the Computed cells); `live_rows` when `check` compares the sheet.
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

from budgetbook.planfile.loader import plan_from_data  # noqa: E402
from budgetbook.planning.fit_book import computed, live_rows  # noqa: E402
from budgetbook.reference import compute_breakdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10x2,100x5")
    parser.add_argument("--solve", default="tokens,params")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'plan':>7} {'solve':>7} | {'live_rows ms':>12} {'computed ms':>11} | {'linear markets':>14}")
    for size in args.sizes.split(","):
        workloads, markets = (int(n) for n in size.split("x"))
        data = portfolio_plan(workloads, markets, roles=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = plan_from_data(data, size)
            total = compute_breakdown(plan).value(f"total_{plan.markets[0].id}")
            for solve in args.solve.split(","):
                fitted = plan_from_data(data | {"fit": {"budget": 2 * total, "solve": solve,
                                                        "workload": data["workloads"][0]["id"]}}, size)
                live = median_ms(lambda p=fitted: live_rows(p), args.repeat)
                values = computed(fitted)
                done = median_ms(lambda p=fitted: computed(p), args.repeat)
                linear = sum(1 for v in values.values() if v["linear"])
                print(f"{size:>7} {solve:>7} | {live:12.0f} {done:11.0f} | {linear:>6} of {len(values):<6}")


if __name__ == "__main__":
    main()
