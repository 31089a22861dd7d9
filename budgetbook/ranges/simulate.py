"""`simulate`: Monte Carlo over the ranges, every sample of every market in one vectorised pass.

Each ranged input is drawn `samples` times from a distribution over its (low, base, high): triangular
(mode = base) or PERT (a beta scaled to [low, high], mode = base, shape 4). The draws are made from one
`numpy.random.default_rng(seed)`, 100,000 samples at a time (memory stays bounded), in each chunk input by
input in the Inputs sheet's order, so the same plan, seed and sample count give the same numbers. What is
correlated and what is not: see `engine.py` (one draw per input, shared by every workload and market that
reads it; different inputs independent).

Memory (issue 27): the percentiles and means are exact, from every sample's float64 total, and the same
bits as when every market's totals were held at once; but at most `KEPT_BYTES` of totals are held: the
markets are taken a group at a time, the draws made again from the seed for each group (they are the
same draws), so 10,000,000 samples hold 2 markets' totals (160 MB) at a time instead of all of them plus
copies (1,053 MB for pretrain-7b). The comparisons between markets (`cheaper`, `cheapest`) are counted
chunk by chunk in the first pass. Not float32 totals: they would change the figures in the 7th digit,
and still grow with the number of markets. Not a streaming quantile sketch: its percentiles are not exact.
The cost is time: one more pass of draws per further group (`benchmarks/bench_simulate_memory.py`).

The work of a chunk is bounded too, whatever the plan's size: a chunk's draws (one array per ranged
input) are at most `DRAWN_BYTES` (fewer samples a chunk, down to `MIN_CHUNK`, for a plan of many ranged
inputs: every template keeps its 100,000, and every plan's workbook its 10,000, so their figures are
unchanged), and the line items are computed a slice of samples at a time, as many as keep their arrays
under `SLICE_BYTES` (`slice_width`: measured on a probe with `tracemalloc` where a bound says it could
matter). Line items are elementwise over samples, so a slice gives the same bits as the whole chunk.
The longest schedules (1,200 months of cash flow) held 1.9 GB a chunk; the maximum plan's 533 ranged
inputs 426 MB of draws (43 MB now).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..errors import UsageError
from ..heap import give_back_freed_memory
from ..lineitems.phasing import month_count
from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..progress import stage
from .engine import ranged_inputs, totals

DISTRIBUTIONS = ("triangular", "pert")
DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0
MAX_SAMPLES = 10_000_000
PERCENTILES = {"p10": 10, "p50": 50, "p90": 90}
PERT_SHAPE = 4.0
CHUNK = 100_000   # samples drawn and computed at once; the draws of a chunk are made input by input
HISTOGRAM_BINS = 60  # the drawn distribution's bins: smooth enough at 10,000 samples, every bump seen at 10M


def _histogram_range(values: np.ndarray) -> tuple[float, float]:
    """The histogram's range: the draws' own, or one value where they differ by rounding alone (a range that
    moves nothing, summed in another order): numpy cannot cut 1e-16 into 60 bins and refuses."""
    low, high = float(values.min()), float(values.max())
    if high - low <= 4 * HISTOGRAM_BINS * float(np.spacing(max(abs(low), abs(high)))):
        low = high = (low + high) / 2  # numpy draws one value's histogram from -0.5 to +0.5 around it
    return low, high
KEPT_BYTES = 160_000_000  # markets' float64 totals held at once: two at 10,000,000 samples (peak under 300 MB)
DRAWN_BYTES = 24_000_000  # one chunk's draws: 100,000 samples of up to 30 ranged inputs (a template has at most 11)
MIN_CHUNK = 10_000        # samples a chunk at least: workbook/percentiles.SAMPLES (a test holds the two)
SLICE_BYTES = 24_000_000  # the line items' arrays of one slice of samples, computed at once
PROBE = 256               # samples of the probe that measures the line items' bytes per sample
BYTES_PER_MONTH = 128     # a sample's line items a month of cash flow, about: max plan ~100, templates <= 70


@dataclass
class MarketStats:
    p10: float
    p50: float
    p90: float
    mean: float
    cheaper: dict[str, float]   # other market -> share of samples in which it costs less than this one
    cheapest: float             # share of samples in which this market costs less than every other
    # the distribution as `simulate --plot` and `report` draw it: bin edges and counts (not in the JSON)
    histogram: tuple[list[float], list[int]] = field(default=([], []), repr=False)


@dataclass
class Simulation:
    plan: str
    currency: str
    samples: int
    seed: int
    distribution: str
    markets: dict[str, MarketStats]
    labels: dict[str, str] = field(default_factory=dict)  # market id -> its label, as the tables show it

    def as_json(self) -> dict:
        return {"plan": self.plan, "currency": self.currency, "samples": self.samples, "seed": self.seed,
                "distribution": self.distribution,
                "markets": {m: {"p10": s.p10, "p50": s.p50, "p90": s.p90, "mean": s.mean, "cheaper": s.cheaper,
                                "cheapest": s.cheapest}
                            for m, s in self.markets.items()}}


def draw(cell: InputCell, rng: np.random.Generator, samples: int, distribution: str) -> np.ndarray:
    low, mode, high = cell.num.low, cell.num.base, cell.num.high
    if distribution == "triangular":
        return rng.triangular(low, mode, high, samples)
    span = high - low
    alpha = 1 + PERT_SHAPE * (mode - low) / span
    beta = 1 + PERT_SHAPE * (high - mode) / span
    return low + span * rng.beta(alpha, beta, samples)


def analytic_mean(cell: InputCell, distribution: str) -> float:
    """The mean of an input's distribution: (l + b + h) / 3 triangular, (l + 4b + h) / 6 PERT."""
    low, mode, high = cell.num.low, cell.num.base, cell.num.high
    if distribution == "triangular":
        return (low + mode + high) / 3
    return (low + PERT_SHAPE * mode + high) / (PERT_SHAPE + 2)


def _check(samples: int, seed: int, distribution: str) -> None:
    if distribution not in DISTRIBUTIONS:
        raise UsageError(f"`--distribution {distribution}`: expected one of {', '.join(DISTRIBUTIONS)}")
    if not 1 <= samples <= MAX_SAMPLES:
        raise UsageError(f"`--samples {samples}`: expected 1 to {MAX_SAMPLES:,}")
    if seed < 0:
        raise UsageError(f"`--seed {seed}`: expected a whole number, at least 0")


def chunk_size(inputs: int) -> int:
    """Samples drawn at once: `CHUNK`, fewer where the plan's ranged inputs would take over `DRAWN_BYTES`, but
    never under `MIN_CHUNK`: a workbook's Summary percentiles (10,000 samples) stay one chunk, so no book's
    figures change with this bound."""
    return max(MIN_CHUNK, min(CHUNK, DRAWN_BYTES // (8 * max(1, inputs))))


def slice_width(plan: Plan, cells: list[InputCell], count: int, distribution: str,
                only: frozenset[str] | None) -> int:
    """Samples whose line items are computed at once: `count`, unless their arrays could pass `SLICE_BYTES`.

    A bound first (`BYTES_PER_MONTH` a sample and month, so a template at 10,000 samples is never probed);
    past it the bytes a sample takes are measured: the peak `tracemalloc` sees (numpy reports its arrays to
    it) while computing `PROBE` samples drawn from a generator of their own (the simulation's is untouched).
    """
    months = month_count(plan)
    if count * BYTES_PER_MONTH * (months + 1) <= SLICE_BYTES:
        return count
    import tracemalloc  # the probe only: simulate at a large sample count or a long plan

    rng = np.random.default_rng(0)
    columns = {id(cell.num): draw(cell, rng, PROBE, distribution) for cell in cells}
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        totals(plan, columns, PROBE, only)
        used = max(1, tracemalloc.get_traced_memory()[1] - before)
    finally:
        if not tracing:
            tracemalloc.stop()
    return max(1, min(count, SLICE_BYTES * PROBE // used))


def _chunks(plan: Plan, samples: int, seed: int, distribution: str,
            only: frozenset[str] | None = None) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """(first sample, {market: totals}) slice by slice; the same draws every time for the same seed."""
    rng = np.random.default_rng(seed)
    cells = ranged_inputs(plan)
    size = chunk_size(len(cells))
    width = 0
    for start in range(0, samples, size):  # memory stays bounded: one chunk's draws at a time
        count = min(size, samples - start)
        columns = {id(cell.num): draw(cell, rng, count, distribution) for cell in cells}
        width = width or slice_width(plan, cells, count, distribution, only)
        for at in range(0, count, width):  # and one slice's line items
            part = {key: column[at:at + width] for key, column in columns.items()}
            yield start + at, totals(plan, part, min(width, count - at), only)


def sample_totals(plan: Plan, samples: int, seed: int, distribution: str) -> dict[str, np.ndarray]:
    """Each market's total development cost in every sample (all held at once: for small sample counts)."""
    _check(samples, seed, distribution)
    parts = [part for _, part in _chunks(plan, samples, seed, distribution)]
    return {market: np.concatenate([part[market] for part in parts]) for market in parts[0]}


def simulate(plan: Plan, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
             distribution: str = "triangular") -> Simulation:
    _check(samples, seed, distribution)
    stage("simulating", samples, "samples")
    markets = [m.id for m in plan.markets]
    per_pass = max(1, KEPT_BYTES // (8 * samples))
    groups = [markets[i:i + per_pass] for i in range(0, len(markets), per_pass)]
    below = {m: dict.fromkeys(markets, 0) for m in markets}  # below[m][o]: samples in which o costs less than m
    wins = dict.fromkeys(markets, 0)
    stats = {}
    for number, group in enumerate(groups):
        kept = {m: np.empty(samples) for m in group}
        for start, chunk in _chunks(plan, samples, seed, distribution, None if number == 0 else frozenset(group)):
            if number == 0:  # every market of the chunk at hand: the comparisons, counted
                # ties go to the first market in plan order (argmin): a market and its copy are not both cheapest
                winner = np.argmin(np.vstack([chunk[m] for m in markets]), axis=0)
                for index, market in enumerate(markets):
                    wins[market] += int(np.count_nonzero(winner == index))
                    for other in markets:
                        if other != market:
                            below[market][other] += int(np.count_nonzero(chunk[other] < chunk[market]))
            for market in group:
                values = chunk[market]
                kept[market][start:start + len(values)] = values
        for market in group:
            values = kept.pop(market)
            mean = float(np.mean(values))  # before the percentiles reorder the array in place
            counts, edges = np.histogram(values, bins=HISTOGRAM_BINS, range=_histogram_range(values))
            p10, p50, p90 = (float(v) for v in np.percentile(values, list(PERCENTILES.values()),
                                                              overwrite_input=True))
            del values
            cheaper = {other: below[market][other] / samples for other in markets if other != market}
            stats[market] = MarketStats(p10, p50, p90, mean, cheaper, wins[market] / samples,
                                        (edges.tolist(), counts.tolist()))
    give_back_freed_memory()
    return Simulation(plan.name, plan.currency, samples, seed, distribution, stats,
                      {m.id: m.label or m.id for m in plan.markets})
