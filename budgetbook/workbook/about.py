"""`About`: what the workbook is and how to edit it, for a finance reader opening it cold."""

from __future__ import annotations

import datetime as dt

from .. import __version__
from ..lineitems.registry import calc_sheet_titles
from ..plan.model import Plan
from ..sheetkit.grid import Blueprint

LINES = (
    ("How to edit", "Blue cells on a pale yellow fill on the Inputs sheet are inputs: type over them. "
                    "Every other number is a live formula."),
    ("", "Low and high beside an input are the optimistic and pessimistic ends of its range."),
    ("How to verify", "`budgetbook check this.xlsx` re-evaluates every formula and compares each figure "
                      "with an independent Python model of the same accounting, recomputed from your inputs."),
    ("", "The Checks sheet does the same inside the workbook: its master check turns red when the "
         "workbook disagrees with itself."),
    ("How formulas read", "Each row is one formula copied across the market columns. Where each market "
                          "reads its own input (its price per GPU-hour), the formula picks it with CHOOSE by "
                          "the market number in row 3 of the sheet."),
    ("Three magnitudes", "Final-run compute, total development cost and serving cost are reported "
                         "side by side and never added together."),
)


def build_about(book: Blueprint, plan: Plan, today: dt.date, version: str = __version__) -> None:
    sheet = book.sheet("About", "about")
    sheet.gridlines = False
    sheet.put(1, 1, "budgetbook: ML training budget", "title")
    rows = [("Plan", plan.name), ("Description", plan.description), ("Currency", plan.currency),
            ("Prices as of", plan.as_of.isoformat() if plan.as_of else "not stated"),
            ("Generated", today.isoformat()), ("budgetbook version", version), ("", "")]
    rows += list(LINES)
    rows.append(("Sheets", f"Inputs -> {'; '.join(calc_sheet_titles(plan))} -> Summary; Procurement; Cash flow; "
                           "Checks."))
    for r, (key, value) in enumerate(rows, 3):
        sheet.put(r, 1, key, "section", text=True)
        sheet.put(r, 2, value, "text", text=True)
    sheet.widths = {1: 22, 2: 110}
