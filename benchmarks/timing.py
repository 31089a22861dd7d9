"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs of `fn`, in seconds (the least disturbed by the rest of the machine)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def median_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    """The median of `repeat` runs of `fn`, in milliseconds (a typical run, for work measured in-process)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000
