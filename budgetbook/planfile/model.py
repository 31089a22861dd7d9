"""The full plan model: the core (markets of every kind, workloads) and every line item's section, in
registry order.

The core (`plan.model.Plan`) is what the line items and the market kinds stand on; this model, built on
top of both registries, is what a plan file is validated against and what its JSON Schema describes. It
names its line items (`LINE_ITEMS`) and its market kinds (`MARKET_KINDS`), so the core's cross-checks
and input cells reach every section and every kind.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

from pydantic import Field, create_model

from ..lineitems.registry import LINE_ITEMS
from ..markets import registry as market_kinds
from ..plan.model import Plan

PLAN_MODEL: type[Plan] = create_model(  # type: ignore[call-overload]
    "Plan", __base__=Plan, __module__=__name__, LINE_ITEMS=(ClassVar[tuple[Any, ...]], LINE_ITEMS),
    MARKET_KINDS=(ClassVar[ModuleType], market_kinds),
    markets=(list[market_kinds.MARKET_MODEL], Field(min_length=1, max_length=20)),  # type: ignore[valid-type]
    **{li.section.key: (li.section.annotation, li.section.default) for li in LINE_ITEMS if li.section})
