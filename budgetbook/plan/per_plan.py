"""What a plan object determines, worked out once per object while it lives (`PerPlan`).

Plans are frozen, so what is computed from one alone holds for as long as it lives: `check` asks for a
plan's input cells 6-11 times and the reference for its months once per market and scenario (~50 times
on a 100-workload portfolio), each ~5-10 ms. Keyed by the object (its id, checked by a weak reference)
and dropped with it; `workbook.memo.PlanMemo` keys by content too, for work worth a content key (~2 ms).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class PerPlan(Generic[T]):
    """`fn(plan)`, once per plan object, held while the plan lives."""

    def __init__(self, fn: Callable[[Any], T]):
        self._fn = fn
        self._known: dict[int, tuple[weakref.ref, T]] = {}  # id(plan) -> (plan, result)

    def __call__(self, plan: Any) -> T:
        known = self._known.get(id(plan))
        if known is not None and known[0]() is plan:
            return known[1]
        result = self._fn(plan)
        self._known[id(plan)] = (weakref.ref(plan), result)
        weakref.finalize(plan, self._known.pop, id(plan), None)  # dropped with the plan
        return result

    def __len__(self) -> int:
        return len(self._known)
