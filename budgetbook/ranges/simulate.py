"""`simulate`: Monte Carlo over the ranges, every sample of every market in one vectorised pass.

Each ranged input is drawn `samples` times from a distribution over its (low, base, high): triangular
(mode = base) or PERT (a beta scaled to [low, high], mode = base, shape 4). The draws are made from one
`numpy.random.default_rng(seed)`, 100,000 samples at a time (memory stays bounded), in each chunk input by
input in the Inputs sheet's order, so the same plan, seed and sample count give the same numbers. What is
correlated and what is not: see `engine.py` (one draw per input, shared by every workload and market that
reads it; different inputs independent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..plan.inputs import InputCell
from ..plan.model import Plan
from .engine import ranged_inputs, totals

DISTRIBUTIONS = ("triangular", "pert")
DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0
MAX_SAMPLES = 10_000_000
PERCENTILES = {"p10": 10, "p50": 50, "p90": 90}
PERT_SHAPE = 4.0
CHUNK = 100_000   # samples drawn and computed at once; the draws of a chunk are made input by input


@dataclass
class MarketStats:
    p10: float
    p50: float
    p90: float
    mean: float
    cheaper: dict[str, float]   # other market -> share of samples in which it costs less than this one
    cheapest: float             # share of samples in which this market costs less than every other


@dataclass
class Simulation:
    plan: str
    currency: str
    samples: int
    seed: int
    distribution: str
    markets: dict[str, MarketStats]

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


def sample_totals(plan: Plan, samples: int, seed: int, distribution: str) -> dict[str, np.ndarray]:
    """Each market's total development cost in every sample."""
    if distribution not in DISTRIBUTIONS:
        raise UsageError(f"`--distribution {distribution}`: expected one of {', '.join(DISTRIBUTIONS)}")
    if not 1 <= samples <= MAX_SAMPLES:
        raise UsageError(f"`--samples {samples}`: expected 1 to {MAX_SAMPLES:,}")
    if seed < 0:
        raise UsageError(f"`--seed {seed}`: expected a whole number, at least 0")
    rng = np.random.default_rng(seed)
    cells = ranged_inputs(plan)
    parts: list[dict[str, np.ndarray]] = []
    for start in range(0, samples, CHUNK):  # memory stays bounded: one chunk's arrays at a time
        count = min(CHUNK, samples - start)
        columns = {id(cell.num): draw(cell, rng, count, distribution) for cell in cells}
        parts.append(totals(plan, columns, count))
    return {market: np.concatenate([part[market] for part in parts]) for market in parts[0]}


def simulate(plan: Plan, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
             distribution: str = "triangular") -> Simulation:
    by_market = sample_totals(plan, samples, seed, distribution)
    stats = {}
    stacked = np.vstack(list(by_market.values()))
    # ties go to the first market in plan order (argmin): a market and its copy are not both cheapest
    winner = np.argmin(stacked, axis=0)
    for index, (market, values) in enumerate(by_market.items()):
        p10, p50, p90 = (float(v) for v in np.percentile(values, list(PERCENTILES.values())))
        cheaper = {other: float(np.mean(by_market[other] < values)) for other in by_market if other != market}
        stats[market] = MarketStats(p10, p50, p90, float(np.mean(values)), cheaper, float(np.mean(winner == index)))
    return Simulation(plan.name, plan.currency, samples, seed, distribution, stats)
