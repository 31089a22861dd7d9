"""Labels a reader reads: an input by its owner and the Inputs sheet's title, a market by its label.

An `InputCell`'s `label` ("Decentralized market egress per gb") is the plan key in words, fine in a
message; the output sheets (Sensitivity, its tornado, Checks) show the title table's words instead,
the same as the Inputs row ("Decentralized market: Egress price"), and a market's label, never its id.
Allowed bounds read as numbers are written (`1,000,000`, not `1e6`).
"""

from __future__ import annotations

from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..sheetkit.input_labels import _owner, title


def input_title(plan: Plan, cell: InputCell) -> str:
    """`Decentralized market: Egress price`, `Research / ML engineer: Monthly cost`: owner, then title."""
    text = title(plan, cell)
    head = cell.path[0]
    if head in ("markets", "workloads") and isinstance(cell.path[1], int):
        owner = getattr(plan, head)[cell.path[1]]
        name = owner.label or owner.id
        return text if text.startswith(f"{name}: ") else f"{name}: {text}"
    owner_name = _owner(plan, cell)
    return text if not owner_name or text.startswith(f"{owner_name}: ") else f"{owner_name}: {text}"


def market_title(plan: Plan, market_id: str) -> str:
    """The market's label (its id where it has none)."""
    market = next((m for m in plan.markets if m.id == market_id), None)
    return (market.label or market.id) if market is not None else market_id


def number(value: float) -> str:
    """A bound as a reader writes it: 1,000,000, 0.5, 1e+15 only beyond a trillion."""
    if value == int(value) and abs(value) < 1e12:
        return f"{int(value):,}"
    return f"{value:,.6g}"


def bounds_text(cell: InputCell) -> str:
    bounds = cell.bounds
    lower = f"greater than {number(bounds.minimum)}" if bounds.min_exclusive else f"at least {number(bounds.minimum)}"
    return f"{lower} and at most {number(bounds.maximum)}"
