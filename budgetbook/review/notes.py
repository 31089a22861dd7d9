"""The Inputs notes a reader edited, to write back as the plan's comments (`extract`).

Each input's note is on its row, in the column headed "Note / source" (found by its header, so a
moved column still works). A note that differs from the one the workbook was generated with
(`inputs_sheet.input_note`) is an edit: `extract` writes it as the key's comment; a cleared note
removes the comment.
"""

from __future__ import annotations

from typing import Any

from ..plan.comments import input_comments
from ..plan.inputs import InputCell
from ..workbook.inputs_sheet import input_note
from .readback import OpenedWorkbook

NOTE_HEADER = "note / source"


def _note_column(ws: Any, row: int) -> int | None:
    """The column headed `Note / source` in a row above `row` (the nearest), read from existing cells."""
    best = None
    for (r, column), cell in ws._cells.items():
        if r < row and isinstance(cell.value, str) and cell.value.strip().lower() == NOTE_HEADER:
            if best is None or r > best[0]:
                best = (r, column)
    return None if best is None else best[1]


def edited_notes(book: OpenedWorkbook, cells: list[InputCell]) -> dict[tuple, str]:
    """{key path: the note now on the input's row} for every note changed since generation."""
    generated = input_comments(book.plan_text, [cell.path for cell in cells])
    columns: dict[str, int | None] = {}
    out = {}
    for cell in cells:
        where = book.names.get(cell.name.lower())
        if where is None or where[0] not in book.wb.sheetnames:
            continue
        ws = book.wb[where[0]]
        row = ws[where[1]].row
        if where[0] not in columns:
            columns[where[0]] = _note_column(ws, row)
        column = columns[where[0]]
        if column is None:
            continue
        value = ws.cell(row=row, column=column).value
        now = "" if value is None else " ".join(str(value).split())
        was = " ".join(input_note(book.plan, cell, generated).split())
        if now != was:
            out[cell.path] = now
    return out
