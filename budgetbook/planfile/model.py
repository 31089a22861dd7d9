"""The full plan model: the core (markets, workloads) and every line item's section, in registry order.

The core (`plan.model.Plan`) is what the line items stand on; this model, built on top of the
registry, is what a plan file is validated against and what its JSON Schema describes. It names
its line items (`LINE_ITEMS`), so the core's cross-checks and input cells reach every section.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import create_model

from ..lineitems.registry import LINE_ITEMS
from ..plan.model import Plan

PLAN_MODEL: type[Plan] = create_model(  # type: ignore[call-overload]
    "Plan", __base__=Plan, __module__=__name__, LINE_ITEMS=(ClassVar[tuple[Any, ...]], LINE_ITEMS),
    **{li.section.key: (li.section.annotation, li.section.default) for li in LINE_ITEMS if li.section})
