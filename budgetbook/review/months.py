"""`check` of the Cash flow sheet: each line's months beside the reference model's, recomputed from the inputs.

One finding per line and market at most (the first month that differs, and how
many do), so a typed-over cell does not bury the report; and one when the
schedule now runs past the sheet's last month (an input moved a start or a
length out of the months the workbook was generated with).
"""

from __future__ import annotations

from typing import Any

from ..reference import MonthlyBreakdown
from .compare import close_enough
from .findings import Finding
from .readback import OpenedWorkbook


def compare_months(book: OpenedWorkbook, evaluated: dict[str, Any], monthly: MonthlyBreakdown,
                   rel_tol: float, abs_tol: float) -> list[Finding]:
    findings = []
    sheet_months = sum(1 for n in range(1, len(monthly.months) + 1)
                       if book.locate(f"cf_total_{monthly.markets[0]}_m{n}") is not None)
    if not sheet_months:
        return []  # no Cash flow sheet to hold (or its names are gone: `missing` says so)
    if len(monthly.months) > sheet_months:
        findings.append(Finding("mismatch", f"the schedule now runs to {monthly.months[-1]} ({len(monthly.months)} "
                                f"months) but the Cash flow sheet has {sheet_months}: its months no longer add up "
                                "to the figures; extract the plan and generate the workbook again",
                                sheet="Cash flow", expected=len(monthly.months), actual=sheet_months))
    for row in monthly.rows:
        wrong = []
        for n, expected in enumerate(row.values[:sheet_months], 1):
            name = f"cf_{row.item}_{row.market}_m{n}"
            value = evaluated.get(name.lower())
            if book.locate(name) is None or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue  # a gone name or an error value: `missing` and `error_value` report it
            if not close_enough(float(value), expected, rel_tol, abs_tol):
                wrong.append((n, name, expected, value))
        if wrong:
            n, name, expected, value = wrong[0]
            sheet, cell = book.where(name)
            more = f" (and {len(wrong) - 1} more months)" if len(wrong) > 1 else ""
            findings.append(Finding("mismatch", f"{row.label} ({row.market}) in {monthly.months[n - 1]} is "
                                    f"{value:,.2f}; the reference model gives {expected:,.2f}{more}",
                                    sheet, cell, name, expected, value))
    return findings
