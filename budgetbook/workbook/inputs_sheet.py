"""`Inputs`: one row per plan input (blue on pale yellow), then the named constants."""

from __future__ import annotations

from ..lineitems.registry import LINE_ITEMS
from ..lineitems.units import CONSTANTS
from ..plan.inputs import InputCell
from ..plan.model import Plan
from . import style as st
from .grid import Blueprint, Sheet
from .scenario import add_scenario, add_used

COLUMNS = ("Section", "Input", "Value", "Unit", "Low", "High", "Note / source", "Plan key",
           "Allowed from", "Allowed to", "Defined name")
VALUE, LOW, HIGH, MIN, MAX = 3, 5, 6, 9, 10
FIRST_ROW = 5

def section_of(plan: Plan, cell: InputCell) -> str:
    if cell.section:
        return cell.section
    head = cell.path[0]
    if head == "markets":
        market = plan.markets[cell.path[1]]
        return f"Market: {market.label or market.id}"
    if head == "workloads":
        workload = plan.workloads[cell.path[1]]
        return f"Workload: {workload.label or workload.id}"
    return next(li.section.title for li in LINE_ITEMS if li.section is not None and li.section.key == head)


def _note(plan: Plan, cell: InputCell) -> str:
    if cell.note:
        return cell.note
    if cell.path[0] == "workloads" and cell.path[-1] == "peak_tflops":
        return f"peak dense {plan.workloads[cell.path[1]].precision.upper()}"
    return ""


def build_inputs(book: Blueprint, plan: Plan, cells: list[InputCell]) -> Sheet:
    sheet = book.sheet("Inputs", "inputs")
    sheet.put(1, 1, "Inputs", "title")
    sheet.put(2, 1, "Blue cells on pale yellow are inputs: type over them. Every other cell is a formula. "
                    "Low and high are the optimistic and pessimistic ends of a range.", "subtitle")
    for col, title in enumerate(COLUMNS, 1):
        sheet.put(FIRST_ROW - 1, col, title, "header")
    add_scenario(book, sheet, FIRST_ROW - 1)
    row = FIRST_ROW
    previous = None
    for cell in cells:
        section = section_of(plan, cell)
        if section != previous:
            sheet.put(row, 1, section, "section", text=True)
            previous = section
        fmt = st.input_format(cell.bounds.unit, plan.currency, cell.num.base)
        sheet.put(row, 2, cell.label, "label", text=True)
        sheet.put(row, VALUE, cell.num.base, "input", fmt)
        book.name(cell.name, sheet, row, VALUE, "input")
        sheet.put(row, 4, cell.bounds.unit.replace("money", plan.currency), "unit", text=True)
        if cell.num.ranged:
            for col, end, value in ((LOW, "low", cell.num.low), (HIGH, "high", cell.num.high)):
                sheet.put(row, col, value, "input", fmt)
                book.name(f"{cell.name}_{end}", sheet, row, col, "input")
            add_used(book, sheet, row, cell, fmt)
        sheet.put(row, 7, _note(plan, cell), "note", text=True)
        sheet.put(row, 8, cell.key_path, "unit", text=True)
        sheet.put(row, MIN, cell.bounds.minimum, "constant", fmt)
        book.name(f"{cell.name}_min", sheet, row, MIN, "constant")
        sheet.put(row, MAX, cell.bounds.maximum, "constant", fmt if cell.bounds.maximum < 1e9 else st.BIG)
        book.name(f"{cell.name}_max", sheet, row, MAX, "constant")
        sheet.put(row, 11, cell.name, "unit", text=True)
        for col in (VALUE, LOW, HIGH) if cell.num.ranged else (VALUE,):
            sheet.validations.append((f"{_col(col)}{row}", _rule(cell, f"{_col(col)}{row}")))
        row += 1
    row += 1
    sheet.put(row, 1, "Constants", "section")
    sheet.put(row, 2, "(definitions, not assumptions: referenced by name in formulas)", "note")
    row += 1
    for name, label, value, unit, source in CONSTANTS:
        sheet.put(row, 2, label, "label")
        sheet.put(row, VALUE, value, "constant", st.BIG if value >= 1e6 or 0 < value < 1e-3 else st.NUMBER)
        book.name(name, sheet, row, VALUE, "constant")
        sheet.put(row, 4, unit, "unit")
        sheet.put(row, 7, source, "note")
        sheet.put(row, 11, name, "unit")
        row += 1
    sheet.widths = {1: 30, 2: 44, 3: 14, 4: 16, 5: 12, 6: 12, 7: 40, 8: 34, 9: 12, 10: 12, 11: 40} | sheet.widths
    sheet.freeze = f"C{FIRST_ROW}"
    sheet.row = row
    return sheet


def _col(col: int) -> str:
    return "ABCDEFGHIJK"[col - 1]


def _rule(cell: InputCell, at: str) -> dict:
    bounds = cell.bounds
    message = f"{cell.label}: must be {bounds.describe()}"
    if bounds.min_exclusive:
        # Excel's "decimal between" is inclusive at both ends: an exclusive minimum needs a custom rule
        return {"type": "custom", "formula1": f"AND(ISNUMBER({at}),{at}>{bounds.minimum!r},"
                                             f"{at}<={bounds.maximum!r})", "message": message}
    return {"type": "decimal", "operator": "between", "formula1": repr(bounds.minimum),
            "formula2": repr(bounds.maximum), "message": message}
