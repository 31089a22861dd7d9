"""The reference model run on numpy arrays: one column per input vector, every market at once.

The line items' reference rules are plain arithmetic (and `sum`), so they run unchanged when each
ranged input is a numpy array instead of a float: `Vectors` is `Resolved` (lineitems/scenario.py) with
each ranged `Num` replaced by its column of values. One pass computes every market for every column:
the Monte Carlo draws of `simulate`, or the one-input-moved vectors of `sensitivity`.

One array per input, shared by everything that reads it, is what makes the correlations honest: a
market's price per GPU-hour is one draw for every workload that runs on that market (and for a
hybrid paying that market's price), a workload's MFU one draw for that workload on every market.
Different inputs are drawn independently.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from ..lineitems.phasing import month_count
from ..lineitems.registry import LINE_ITEMS, TOTAL, gpu_hours_bought, lines
from ..lineitems.scenario import MarketView, Resolved
from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..plan.numbers import Num
from .ranged import ranged_inputs


class Vectors(Resolved):
    """A plan model in which each `Num` in `columns` (by identity) is its array, every other its base."""

    __slots__ = ("_columns",)

    def __init__(self, model: BaseModel, columns: dict[int, np.ndarray]):
        super().__init__(model, "base")
        self._columns = columns

    def __getattr__(self, name: str) -> Any:
        seen = self._seen
        if name not in seen:
            seen[name] = self._resolve(getattr(self._model, name))
        return seen[name]

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, Num):
            return self._columns.get(id(value), value.base)
        if isinstance(value, BaseModel):
            return Vectors(value, self._columns)
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        return value


def totals(plan: Plan, columns: dict[int, np.ndarray], count: int,
           only: frozenset[str] | None = None) -> dict[str, np.ndarray]:
    """Each market's total development cost for every column: {market id: array of `count`}.

    `columns` maps `id(cell.num)` of input cells (`ranged_inputs`) to arrays of `count` values;
    `only`, where given, the markets to compute (the others are left out).
    """
    resolved = Vectors(plan, columns)
    months = month_count(plan)
    development = [line.id for line in lines(plan) if line.in_total]
    out = {}
    for market in resolved.markets:
        if only is not None and market.id not in only:
            continue
        view = MarketView(resolved, market, "base", months=months, buying=gpu_hours_bought)
        for item in LINE_ITEMS:
            view.lines.update(item.reference(view))
        total = sum((view.lines[line_id] for line_id in development), 0.0)
        out[market.id] = np.broadcast_to(np.asarray(total, dtype=float), (count,)).copy()
    return out


def end_value(cell: InputCell, end: str) -> float:
    """An input's `low` or `high` value (the plan's ends, not best/worst)."""
    return float(getattr(cell.num, end))


__all__ = ["TOTAL", "Vectors", "end_value", "ranged_inputs", "totals"]
