"""What a plan's content alone determines, computed once while a plan of that content lives.

Laying a plan out as its workbook (~2 s on a 100-workload portfolio, the Sensitivity ranking a
third of it) happens wherever a plan is loaded: loading refuses what a workbook cannot hold. A
command often holds two plan objects of one content: `extract`, `diff PLAN BOOK` and `show BOOK`
load the book's embedded plan and then the plan file or the extracted text (issue 28 item 3). A
memo keyed by the object alone laid each out again; `PlanMemo` keys by the plan's content too.

Plans are frozen, so their content is fixed; the key is their JSON with and without the keys
left to defaults (a rule may read which keys were given). A result is shared while the plan that
computed it lives (blueprints hold that plan weakly: `computed.Lazy.of`), and dropped with it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def content_key(plan: Any) -> str:
    """The plan's content as one string (~2 ms for a 100-workload portfolio)."""
    return f"{type(plan).__qualname__}\0{plan.model_dump_json()}\0{plan.model_dump_json(exclude_unset=True)}"


class PlanMemo(Generic[T]):
    """`fn(plan)`, once per plan object and once per content while the plan that computed it lives."""

    def __init__(self, fn: Callable[[Any], T]):
        self._fn = fn
        self._by_id: dict[int, tuple[weakref.ref, weakref.ref, T]] = {}  # id -> (plan, owner, result)
        self._by_content: dict[str, tuple[weakref.ref, T]] = {}          # key -> (owner, result)

    def __call__(self, plan: Any) -> T:
        known = self._by_id.get(id(plan))
        if known is not None and known[0]() is plan and known[1]() is not None:
            return known[2]
        key = content_key(plan)
        shared = self._by_content.get(key)
        if shared is not None and shared[0]() is not None:
            owner, result = shared
        else:
            owner, result = weakref.ref(plan), self._fn(plan)
            self._by_content[key] = (owner, result)
            weakref.finalize(plan, self._drop, key)
        self._by_id[id(plan)] = (weakref.ref(plan), owner, result)
        weakref.finalize(plan, self._by_id.pop, id(plan), None)  # dropped with the plan; at exit, before globals
        return result

    def ahead(self, plan: Any) -> bool:
        """Work the result out now, while little else is held (`generate` and `check`, before laying the plan
        out); False where it raises: nothing kept, so the cells that read it work it out again, and fail there
        as they would have."""
        try:
            self(plan)
        except Exception:  # noqa: BLE001  whatever it is, it is said where the result is read
            return False
        return True

    def _drop(self, key: str) -> None:
        entry = self._by_content.get(key)
        if entry is not None and entry[0]() is None:
            del self._by_content[key]

    def __len__(self) -> int:
        return len(self._by_content)
