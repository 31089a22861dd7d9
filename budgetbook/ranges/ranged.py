"""Which inputs are ranges: numpy-free, so laying a plan out (every command does) does not import numpy."""

from __future__ import annotations

from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan


def ranged_inputs(plan: Plan) -> list[InputCell]:
    """The plan's inputs that carry a range (low < high), in Inputs sheet order."""
    return [cell for cell in input_cells(plan) if cell.num.ranged and cell.num.low < cell.num.high]
