"""`Inputs`: one row per plan input (blue on pale yellow), then the named constants."""

from __future__ import annotations

from ..lineitems.registry import LINE_ITEMS
from ..lineitems.units import CONSTANTS
from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..sheetkit import input_labels as labels
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint, Sheet
from ..sheetkit.market_labels import SHOWN_COL, SHOWN_HEADER, market_labels, write_label_row, write_shown
from ..sheetkit.scenario import add_scenario, add_used

COLUMNS = ("Section", "Input", "Value", "Unit", "Low", "High", "Note / source", "Plan key",
           "Allowed from", "Allowed to", "Defined name")
VALUE, LOW, HIGH, NOTE, MIN, MAX = 3, 5, 6, 7, 9, 10
FIRST_ROW = 5
SECTION_WIDTH, LABEL_WIDTH, NOTE_WIDTH = 30, 50, 60  # characters; longer sections, labels and notes wrap
LINE_HEIGHT = 15.0                # points, one line of 11-point Calibri
NOTE_CHARACTERS = 72              # notes are small italic: a line of the note column holds ~72 characters
PRINTED_COLUMNS = 7               # Section .. Note / source; plan keys, bounds and names stay on screen


def _lines(text: str, width: int) -> int:
    """How many lines `text` takes wrapped in a column `width` characters wide (words kept whole)."""
    lines, used = 1, 0
    for word in text.split():
        if used and used + 1 + len(word) > width:
            lines, used = lines + 1, len(word)
        else:
            used += len(word) + (1 if used else 0)
    return lines

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


def input_note(plan: Plan, cell: InputCell, notes: dict[tuple, str]) -> str:
    """The source the plan's comment cites (`plan.comments`), else what the input says of itself."""
    if cell.path in notes:
        return notes[cell.path]
    if cell.note:
        return cell.note
    if cell.path[0] == "workloads" and cell.path[-1] == "peak_tflops":
        return f"peak dense {plan.workloads[cell.path[1]].precision.upper()}"
    return ""


def build_inputs(book: Blueprint, plan: Plan, cells: list[InputCell], notes: dict[tuple, str] | None = None) -> Sheet:
    sheet = book.sheet("Inputs", "inputs")
    sheet.put(1, 1, "Inputs", "title")
    sheet.put(2, 1, "Blue cells on pale yellow are inputs: type over them. Every other cell is a formula. "
                    "Low and high are the optimistic and pessimistic ends of a range.", "subtitle")
    for col, title in enumerate(COLUMNS, 1):
        sheet.put(FIRST_ROW - 1, col, title, "header")
    add_scenario(book, sheet, FIRST_ROW - 1)
    row = FIRST_ROW
    previous = None
    live = {label.index: label for label in market_labels(plan, cells) if label.live}
    cited = {splice.cell.path for label in live.values() for splice in label.splices}
    if cited:
        sheet.put(FIRST_ROW - 1, SHOWN_COL, SHOWN_HEADER, "header")
        sheet.widths[SHOWN_COL] = 14
    for cell in cells:
        section = section_of(plan, cell)
        shown = section != previous
        if shown and cell.path[0] == "markets" and cell.path[1] in live:
            # a label citing the market's price: one live formula, atop its section, that every header links to
            title, note = write_label_row(book, sheet, row, live[cell.path[1]], VALUE, NOTE)
            sheet.heights[row] = LINE_HEIGHT * max(_lines(title, LABEL_WIDTH), _lines(note, NOTE_CHARACTERS),
                                                   _lines(section, SECTION_WIDTH))
            previous, shown, row = section, False, row + 1
        if shown:
            sheet.put(row, 1, section, "wrapped_section", text=True)
            previous = section
        fmt = labels.number_format(cell, plan.currency)
        sheet.put(row, 2, labels.title(plan, cell), "wrapped_label", text=True)
        sheet.put(row, VALUE, cell.num.base, "input", fmt)
        book.name(cell.name, sheet, row, VALUE, "input")
        sheet.put(row, 4, labels.unit(cell, plan.currency), "unit", text=True)
        if cell.num.ranged:
            for col, end, value in ((LOW, "low", cell.num.low), (HIGH, "high", cell.num.high)):
                sheet.put(row, col, value, "input", fmt)
                book.name(f"{cell.name}_{end}", sheet, row, col, "input")
            add_used(book, sheet, row, cell, fmt)
        if cell.path in cited:
            write_shown(book, sheet, row, cell)
        note = input_note(plan, cell, notes or {})
        sheet.put(row, NOTE, note, "wrapped_note", text=True)
        lines = max(_lines(labels.title(plan, cell), LABEL_WIDTH), _lines(note, NOTE_CHARACTERS),
                    _lines(section, SECTION_WIDTH) if shown else 1)
        if lines > 1:  # a wrapped row is as tall as its text (LibreOffice keeps a stored file's heights)
            sheet.heights[row] = LINE_HEIGHT * lines
        sheet.put(row, 8, cell.key_path, "unit", text=True)
        sheet.put(row, MIN, cell.bounds.minimum, "constant", fmt)
        book.name(f"{cell.name}_min", sheet, row, MIN, "constant")
        sheet.put(row, MAX, cell.bounds.maximum, "constant", fmt if cell.bounds.maximum < 1e9 else st.BIG)
        book.name(f"{cell.name}_max", sheet, row, MAX, "constant")
        sheet.put(row, 11, cell.name, "unit", text=True)
        for col in (VALUE, LOW, HIGH) if cell.num.ranged else (VALUE,):
            sheet.validations.append((f"{_col(col)}{row}", _rule(cell, f"{_col(col)}{row}") | _prompt(cell, note)))
        row += 1
    row += 1
    sheet.put(row, 1, "Constants", "section")
    sheet.put(row, 2, "(definitions, not assumptions: referenced by name in formulas)", "note")
    row += 1
    for name, label, value, unit, source in CONSTANTS:
        sheet.put(row, 2, label, "label")
        whole = float(value).is_integer()
        sheet.put(row, VALUE, value, "constant", st.BIG if value >= 1e6 or 0 < value < 1e-3
                  else st.WHOLE if whole else st.FRACTION)
        book.name(name, sheet, row, VALUE, "constant")
        sheet.put(row, 4, unit, "unit")
        sheet.put(row, 7, source, "wrapped_note")
        if _lines(source, NOTE_CHARACTERS) > 1:
            sheet.heights[row] = LINE_HEIGHT * _lines(source, NOTE_CHARACTERS)
        sheet.put(row, 11, name, "unit")
        row += 1
    sheet.widths = {1: SECTION_WIDTH, 2: LABEL_WIDTH, 3: 14, 4: 22, 5: 12, 6: 12, 7: NOTE_WIDTH, 8: 34, 9: 16,
                    10: 16, 11: 40} | sheet.widths  # | the scenario's used-value column
    sheet.freeze = f"C{FIRST_ROW}"
    sheet.print_columns, sheet.print_title_rows = PRINTED_COLUMNS, f"{FIRST_ROW - 1}:{FIRST_ROW - 1}"
    sheet.row = row
    return sheet


def _col(col: int) -> str:
    return "ABCDEFGHIJK"[col - 1]


def _prompt(cell: InputCell, note: str) -> dict:
    """The input message shown when the cell is selected: what is allowed, then the source."""
    allowed = f"Allowed: {cell.bounds.describe()}."
    return {"prompt_title": cell.label, "prompt": f"{allowed} Source: {note}" if note else allowed}


def _rule(cell: InputCell, at: str) -> dict:
    bounds = cell.bounds
    message = f"{cell.label}: must be {bounds.describe()}"
    if bounds.min_exclusive:
        # Excel's "decimal between" is inclusive at both ends: an exclusive minimum needs a custom rule
        return {"type": "custom", "formula1": f"AND(ISNUMBER({at}),{at}>{bounds.minimum!r},"
                                             f"{at}<={bounds.maximum!r})", "message": message}
    return {"type": "decimal", "operator": "between", "formula1": repr(bounds.minimum),
            "formula2": repr(bounds.maximum), "message": message}
