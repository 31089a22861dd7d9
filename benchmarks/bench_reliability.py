"""Reliability priced per market (issue 29, item 2): what it adds, and whether one market still wins every sample.

    python benchmarks/bench_reliability.py [--samples 2000]

`pretrain-7b` without its markets' `reliability:` blocks (the lines at zero), then as shipped, with the
sourced ranges its template states (docs/accounting.md, "Reliability: the sources"). Prints each market's
reliability line, its total, and its share of `simulate` samples in which it is cheapest; and the
milliseconds `show`'s reference model takes with and without the blocks.
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


def without_reliability(data: dict) -> dict:
    """The plan as it was before its markets stated reliability: every block removed, the lines at zero."""
    data = copy.deepcopy(data)
    for market in data["markets"]:
        market.pop("reliability", None)
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    shipped = parse_yaml_text(template_text("pretrain-7b"))
    for title, data in (("without reliability", without_reliability(shipped)), ("as shipped", shipped)):
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
