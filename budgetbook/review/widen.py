"""Fair edits: a value typed outside its own estimated range widens the range; only the hard bounds refuse.

A range (low, value, high) is an estimate, and a better quote below the Low is the most ordinary
edit finance makes. So `check`, `extract` and `diff` read a value outside its Low-High, or a Low
typed above the High, as the range that covers all three numbers: `check` warns
(`outside_range`) and compares every figure as usual, `extract` writes the widened range and says
so on stderr. The workbook's scenario switch reads the same covering range (its used value takes
MIN and MAX of the three cells, `workbook/scenario.py`), so best and worst agree with the reference
too. What stays an error (`invalid_input`) is a number outside the key's hard allowed bounds, which
is also exactly what each cell's data validation enforces.
"""

from __future__ import annotations

from ..plan.inputs import InputCell
from ..plan.numbers import Num


def covering(cell: InputCell, base: float, low: float, high: float) -> Num:
    """The range of an input whose typed value and ends are `base`, `low`, `high`: the span of all three."""
    return Num(base, min(low, base, high), max(low, base, high), True, cell.num.lowers_cost)


def outside(base: float, low: float, high: float) -> str | None:
    """What is outside in a typed range, in words (`2.5 is below its Low 3.04`); None when low <= base <= high."""
    if low <= base <= high:
        return None
    if low > high:
        return f"its Low {low:g} is above its High {high:g}"
    return f"{base:g} is below its Low {low:g}" if base < low else f"{base:g} is above its High {high:g}"


def widened_message(cell: InputCell, base: float, low: float, high: float) -> str | None:
    """What was typed outside its range and the range it is read as; None when the value is inside."""
    what = outside(base, low, high)
    if what is None:
        return None
    wide = covering(cell, base, low, high)
    return f"{cell.label}: {what}: the range is widened to {wide.low:g} to {wide.high:g}"


CHECK_ADVICE = "; `extract` writes it so (or type the new Low or High in the workbook)"
