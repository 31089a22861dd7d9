"""`simulate` holds at most `KEPT_BYTES` of totals (issue 27 item 6), with the same results to the bit.

At 10,000,000 samples the markets are taken two at a time, the draws made again from the seed for
each group; here the budget is shrunk so a few thousand samples take one market per pass, and the
result must be identical (not close: identical) to holding every market's totals at once, over
several seeds, both distributions and every template. The memory itself is measured in
`benchmarks/bench_simulate_memory.py`, never timed or measured in a test.
"""

from __future__ import annotations

import numpy as np
import pytest

from budgetbook.planfile.loader import load_plan, template_names
from budgetbook.ranges import simulate as simulate_module
from budgetbook.ranges.simulate import PERCENTILES, sample_totals, simulate


def held_at_once(plan, samples: int, seed: int, distribution: str) -> dict:
    """The results computed the straightforward way: every market's totals in memory together."""
    by_market = sample_totals(plan, samples, seed, distribution)
    winner = np.argmin(np.vstack(list(by_market.values())), axis=0)
    out = {}
    for index, (market, values) in enumerate(by_market.items()):
        p10, p50, p90 = (float(v) for v in np.percentile(values, list(PERCENTILES.values())))
        out[market] = {"p10": p10, "p50": p50, "p90": p90, "mean": float(np.mean(values)),
                       "cheaper": {o: float(np.mean(by_market[o] < values)) for o in by_market if o != market},
                       "cheapest": float(np.mean(winner == index))}
    return out


@pytest.mark.parametrize("template", template_names())
@pytest.mark.parametrize(("samples", "seed", "distribution"), [(3_001, 0, "triangular"), (250_000, 7, "pert")])
def test_one_market_per_pass_gives_the_same_bits(monkeypatch, template, samples, seed, distribution):
    plan = load_plan(template)
    monkeypatch.setattr(simulate_module, "KEPT_BYTES", 8 * samples)  # room for one market's totals
    grouped = simulate(plan, samples, seed, distribution).as_json()["markets"]
    assert grouped == held_at_once(plan, samples, seed, distribution)
    monkeypatch.setattr(simulate_module, "KEPT_BYTES", 10**12)  # and all in one pass: the same again
    assert simulate(plan, samples, seed, distribution).as_json()["markets"] == grouped
