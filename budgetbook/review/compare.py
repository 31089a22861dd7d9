"""The figure comparison: each figure the workbook computes beside the reference model's, within tolerance."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .findings import Finding, clipped, jsonable

if TYPE_CHECKING:  # types only: the CLI imports this at start-up, and these load pydantic and openpyxl
    from ..plan.model import Plan
    from ..reference import Breakdown, Figure
    from .readback import OpenedWorkbook

DEFAULT_REL_TOL = 1e-9
DEFAULT_ABS_TOL = 0.005  # half a cent


def tolerance_problem(value: float) -> str | None:
    """Why `value` cannot be a tolerance, or None: NaN would pass every comparison, a negative one none."""
    if not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if value < 0:
        return f"must be at least 0, got {value:g}"
    return None


def check_tolerances(rel_tol: float, abs_tol: float) -> None:
    """Refuse a NaN, infinite or negative tolerance before any work (a `UsageError`)."""
    for what, value in (("rel_tol", rel_tol), ("abs_tol", abs_tol)):
        problem = tolerance_problem(value)
        if problem is not None:
            raise UsageError(f"`{what}` {problem}")


def close_enough(a: float, b: float, rel_tol: float, abs_tol: float) -> bool:
    return abs(a - b) <= rel_tol * max(abs(a), abs(b)) + abs_tol


def compare_figures(book: OpenedWorkbook, evaluated: dict[str, Any], reference: Breakdown | None, baseline: Plan,
                    rel_tol: float = DEFAULT_REL_TOL,
                    abs_tol: float = DEFAULT_ABS_TOL) -> tuple[list[dict], list[Finding]]:
    """One row per figure (workbook value beside the reference), and a `mismatch` finding per disagreement.

    With no `reference` (the inputs do not make a valid plan), the rows are
    the `baseline` plan's figures with no reference value, and nothing is judged.
    """
    from ..reference import compute_breakdown  # not at import: the CLI imports this at start-up (pydantic)
    from .readback import is_error_value  # here, not above: the CLI reads the tolerances at start-up

    figures, findings = [], []
    expected = reference.figures if reference is not None else compute_breakdown(baseline).figures
    for figure in expected:
        value = evaluated.get(figure.name.lower())
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        row = {"name": figure.name, "item": figure.item, "market": figure.market, "value": number,
               "reference": figure.value if reference is not None else None}
        figures.append(row)
        where = book.locate(figure.name)
        if where is None or reference is None or value is None or is_error_value(value):
            continue  # reported already: missing, invalid input, error value, or no value (audit_formulas says why)
        if number is not None:
            row["difference"] = number - figure.value
        finding = _mismatch(figure, value, number, where, rel_tol, abs_tol)
        if finding is not None:
            findings.append(finding)
    return figures, findings


def _mismatch(figure: Figure, value: Any, number: float | None, where: tuple[str, str], rel_tol: float,
              abs_tol: float) -> Finding | None:
    sheet, cell = where
    if number is None:
        return Finding("mismatch", f"{figure.label} ({figure.market}) is {clipped(value)}, not a number",
                       sheet, cell, figure.name, figure.value, jsonable(value))
    if close_enough(number, figure.value, rel_tol, abs_tol):
        return None
    return Finding("mismatch", f"{figure.label} ({figure.market}) is {number:,.2f}; "
                   f"the reference model gives {figure.value:,.2f}", sheet, cell, figure.name, figure.value, number)
