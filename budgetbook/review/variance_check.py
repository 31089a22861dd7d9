"""`check` of the Variance sheet: every named Variance cell against the reference, recomputed from the inputs.

The Actuals sheet's values are named constants of the layout, so `structure`
already reports one typed over (the embedded bills say otherwise); here the
formulas' results are held against `variance.compute_variance`. One finding per
Variance row at most (its first month that differs, and how many more do).
"""

from __future__ import annotations

import re
from typing import Any

from ..ledger.variance import compute_variance
from ..plan.model import Plan
from .compare import close_enough
from .findings import Finding
from .readback import OpenedWorkbook

_MONTH = re.compile(r"_m(\d+)$")


def compare_variance(book: OpenedWorkbook, evaluated: dict[str, Any], plan: Plan, rel_tol: float,
                     abs_tol: float, scenario: str = "base", *, breakdown: Any = None, monthly: Any = None
                     ) -> list[Finding]:
    """`breakdown` and `monthly`: the plan's in `scenario`, when the caller has them already."""
    figures = compute_variance(plan, book.actuals, scenario, breakdown, monthly)
    wrong: dict[str, list[tuple[str, float, Any]]] = {}
    for name, expected in figures.named().items():
        value = evaluated.get(name.lower())
        if book.locate(name) is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # a gone name or an error value: `missing` and `error_value` report it
        # a share is compared as a share: its tolerance is not in currency units
        tol = abs_tol if "_pct" not in name else 1e-9
        if not close_enough(float(value), expected, rel_tol, tol):
            wrong.setdefault(_MONTH.sub("", name), []).append((name, expected, value))
    findings = []
    for misses in wrong.values():
        name, expected, value = misses[0]
        sheet, cell = book.where(name)
        more = f" (and {len(misses) - 1} more cells of its row)" if len(misses) > 1 else ""
        findings.append(Finding("mismatch", f"Variance `{name}` is {value:,.4f}; the reference model of the plan "
                                f"and the embedded bills gives {expected:,.4f}{more}", sheet, cell, name,
                                expected, value))
    return findings
