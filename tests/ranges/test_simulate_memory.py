"""`simulate` holds at most `KEPT_BYTES` of totals (issue 27 item 6), with the same results to the bit.

At 10,000,000 samples the markets are taken two at a time, the draws made again from the seed for
each group; here the budget is shrunk so a few thousand samples take one market per pass, and the
result must be identical (not close: identical) to holding every market's totals at once, over
several seeds, both distributions and every template. The memory itself is measured in
`benchmarks/bench_simulate_memory.py`, never timed or measured in a test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from budgetbook.planfile.loader import load_plan, template_names
from budgetbook.ranges import simulate as simulate_module
from budgetbook.ranges.simulate import PERCENTILES, sample_totals, simulate

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


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


def longest_plan():
    """The longest schedules allowed: a workload and a commitment from month 600 for 600 months (1,200 months of
    cash flow); a chunk of 100,000 samples held 1.9 GB of line-item arrays before they were computed by slices."""
    from bench_simulate_memory import LONGEST

    from budgetbook.planfile.loader import plan_from_text

    return plan_from_text(LONGEST, "longest.yaml")


@pytest.mark.parametrize("template", [*template_names(), "longest"])
def test_slices_of_samples_give_the_same_bits(monkeypatch, template):
    """The line items computed a few hundred samples at a time (the probe measures, the width follows) give
    exactly the figures of one chunk computed at once."""
    plan, samples = (longest_plan(), 1_001) if template == "longest" else (load_plan(template), 3_001)
    monkeypatch.setattr(simulate_module, "SLICE_BYTES", 3_000_000 if template == "longest" else 100_000)
    cells = simulate_module.ranged_inputs(plan)
    assert 50 < simulate_module.slice_width(plan, cells, samples, "pert", None) < samples / 2  # sliced, truly
    sliced = simulate(plan, samples, 5, "pert").as_json()["markets"]
    monkeypatch.setattr(simulate_module, "SLICE_BYTES", 10**12)
    assert simulate(plan, samples, 5, "pert").as_json()["markets"] == sliced


def test_the_longest_schedules_compute_a_bounded_slice(monkeypatch):
    """Bytes, not time: the peak tracemalloc sees (numpy reports its arrays to it) while simulating 2,000 samples
    of 1,200 months stays near `SLICE_BYTES` (here 4 MB); the whole chunk at once took 38 MB."""
    import tracemalloc

    plan = longest_plan()
    monkeypatch.setattr(simulate_module, "SLICE_BYTES", 4_000_000, raising=False)
    tracemalloc.start()
    try:
        simulate(plan, 2_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, f"{peak:,} bytes"


def test_a_chunk_draws_at_most_drawn_bytes():
    """Every template keeps chunks of 100,000 samples (its draws unchanged); the maximum plan's 533 ranged
    inputs took 426 MB of draws a chunk, now 10,000 samples' (43 MB): never fewer, so the 10,000 samples of a
    workbook's Summary percentiles are one chunk for any plan and no book's figures change."""
    from budgetbook.ranges.simulate import CHUNK, DRAWN_BYTES, MIN_CHUNK, chunk_size
    from budgetbook.workbook.percentiles import SAMPLES

    assert all(chunk_size(len(simulate_module.ranged_inputs(load_plan(t)))) == CHUNK for t in template_names())
    assert chunk_size(30) == CHUNK and chunk_size(60) * 60 * 8 <= DRAWN_BYTES < CHUNK * 60 * 8
    assert chunk_size(533) == MIN_CHUNK == SAMPLES and chunk_size(0) == CHUNK
