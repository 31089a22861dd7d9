"""`check` of the physical figures (issue 13): the Compute sheet's FLOP, GPU-hours, MFU, days and GPUs rows.

They price nothing, so no money figure would notice a rewritten one: each is held against the
reference (`physics/model.py`, recomputed from the workbook's own inputs) like a figure, a `mismatch`
error beyond the relative tolerance.
"""

from __future__ import annotations

from typing import Any

from ..physics.model import physics_rows
from ..plan.model import Plan
from ..planning.fit_book import sheet_rows as fit_rows
from ..planning.options import sheet_rows as options_rows
from .compare import close_enough
from .findings import Finding, clipped, jsonable
from .readback import OpenedWorkbook, is_error_value

ABS_TOL = 1e-9  # the figures are hours, shares and counts, not money: the currency tolerance does not apply
# (the Fit sheet's money rows are held to it too: `check`'s relative tolerance is what lets them differ)


def compare_physics(book: OpenedWorkbook, evaluated: dict[str, Any], current: Plan,
                    rel_tol: float, scenario: str = "base") -> list[Finding]:
    """The Compute sheet's physical figures against the reference in the plan scenario the book is set to."""
    findings = []
    # and the Options sheet's rows, and the Fit sheet's live ones
    rows = [*physics_rows(current, scenario), *options_rows(current, scenario), *fit_rows(current, scenario)]
    for name, _item, market, label, expected in rows:
        where = book.locate(name)
        value = evaluated.get(name.lower())
        if where is None or value is None or is_error_value(value):
            continue  # reported already: missing, or an error value (audit_formulas)
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        if number is None:
            message = f"{label} ({market}) is {clipped(value)}, not a number"
        elif close_enough(number, expected, rel_tol, ABS_TOL):
            continue
        else:
            message = f"{label} ({market}) is {number:,.6g}; the reference model gives {expected:,.6g}"
        findings.append(Finding("mismatch", message, where[0], where[1], name, expected,
                                number if number is not None else jsonable(value)))
    return findings
