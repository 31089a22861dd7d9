"""Numbers budgetbook computes for the workbook (not live formulas): worked out when first read.

The Sensitivity sheet's totals and the Summary's simulated percentiles need the reference model run
many times over; laying a plan out (every command does, to refuse names a workbook cannot hold) must
not pay for that. A `Computed` cell value is computed when something reads it: the writer, the
overwrite guard's rebuild, `check`'s structure audit (which holds the cell to what budgetbook wrote).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any


class Lazy:
    """One computation shared by many cells, run once, on first use."""

    __slots__ = ("_fn", "_result", "_done")

    def __init__(self, fn: Callable[[], Any]):
        self._fn, self._result, self._done = fn, None, False

    @classmethod
    def of(cls, fn: Callable[[Any], Any], plan: Any) -> Lazy:
        """`fn(plan)`, holding the plan weakly: the laid-out blueprints are cached while their plan lives
        (`build._laid_out`), and a strong reference from a cell back to the plan would keep both forever."""
        ref = weakref.ref(plan)

        def run() -> Any:
            alive = ref()
            if alive is None:
                raise RuntimeError("the plan of this blueprint is gone")
            return fn(alive)

        return cls(run)

    def get(self) -> Any:
        if not self._done:
            self._result, self._done = self._fn(), True
        return self._result


class Computed:
    """A cell value picked from a `Lazy` computation's result."""

    __slots__ = ("source", "pick")

    def __init__(self, source: Lazy, pick: Callable[[Any], Any]):
        self.source, self.pick = source, pick

    @property
    def value(self) -> Any:
        return self.pick(self.source.get())

    def __repr__(self) -> str:
        return repr(self.value)


def value_of(value: Any) -> Any:
    """A blueprint cell's value as written: a `Computed` one worked out, anything else as it is."""
    return value.value if isinstance(value, Computed) else value
