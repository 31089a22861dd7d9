"""Reliability priced per market (issue 29, item 2): what it adds, and whether one market still wins every sample.

    python benchmarks/bench_reliability.py [--samples 2000]

`pretrain-7b` as shipped (no `reliability:`, the lines at zero, as the seeds' tables need), then with an
illustrative reliability block per market (ranges; ILLUSTRATIVE below, assumptions except where a source is
named). Prints each market's reliability line, its total, and its share of `simulate` samples in which it is
cheapest; and the milliseconds `show`'s reference model takes with and without the blocks.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import median_ms  # noqa: E402

from budgetbook.plan.yamlsafe import parse_yaml_text  # noqa: E402
from budgetbook.planfile.loader import plan_from_data, template_text  # noqa: E402
from budgetbook.ranges.simulate import simulate  # noqa: E402
from budgetbook.reference import compute_breakdown  # noqa: E402

R = lambda low, base, high: {"low": low, "base": base, "high": high}  # noqa: E731
# Llama 3 (arXiv 2407.21783, 3.3.4): 419 interruptions in 54 days on 16,384 H100 = 7.8/day; at 96 GPUs
# (pretrain-7b's block) that is ~0.05/day: the ranges below are wider, and assumptions
ILLUSTRATIVE = {
    "hyperscaler_commit": {"interruptions_per_day": R(0.02, 0.05, 0.2), "checkpoint_interval_hours": R(1, 2, 4),
                           "restart_hours": R(0.25, 0.5, 1), "sla_credit_share": R(0, 0.005, 0.01),
                           "support_share": R(0, 0.03, 0.05), "setup_days": R(1, 2, 5)},
    "neo_cloud": {"interruptions_per_day": R(0.05, 0.1, 0.4), "checkpoint_interval_hours": R(1, 2, 4),
                  "restart_hours": R(0.5, 1, 2), "support_share": R(0, 0.02, 0.05), "setup_days": R(2, 3, 8),
                  "debugging_days_per_month": R(1, 2, 4), "months": 3},
    "decentralized_market": {"interruptions_per_day": R(0.2, 0.5, 1.5), "checkpoint_interval_hours": R(1, 2, 4),
                             "restart_hours": R(0.5, 1, 3), "redundant_share": R(0.1, 0.5, 1.0),
                             "rejected_share": R(0.02, 0.05, 0.15), "vetting_days": R(2, 5, 15),
                             "debugging_days_per_month": R(2, 5, 10), "months": 3},
}


def with_reliability(data: dict) -> dict:
    data = copy.deepcopy(data)
    for market in data["markets"]:
        if market["id"] in ILLUSTRATIVE:
            market["reliability"] = ILLUSTRATIVE[market["id"]]
    return data



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    shipped = parse_yaml_text(template_text("pretrain-7b"))
    for title, data in (("as shipped", shipped), ("with illustrative reliability", with_reliability(shipped))):
        plan = plan_from_data(data, "pretrain-7b")
        figures = {f.name: f.value for f in compute_breakdown(plan).figures}
        sim = simulate(plan, args.samples, 1)
        cheapest = {m: s.cheapest for m, s in sim.markets.items()}
        reference_ms = median_ms(lambda: compute_breakdown(plan))
        print(f"pretrain-7b {title} ({args.samples} samples; reference {reference_ms:.1f} ms)")
        for market in plan.markets:
            line = figures.get(f"reliability_{market.id}", 0.0)
            print(f"  {market.id:<22} reliability {line:>10,.0f}  total {figures[f'total_{market.id}']:>12,.0f}  "
                  f"cheapest in {cheapest[market.id]:6.1%} of samples")


if __name__ == "__main__":
    main()
