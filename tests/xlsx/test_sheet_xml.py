"""`sheet_xml` writes a sheet's rows as openpyxl's own writer does: every kind of value, styled or not, rows
with a height and no cell, rows whose cells openpyxl leaves out; and splices them into openpyxl's part."""

from __future__ import annotations

import io
import math

import numpy as np
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.worksheet._writer import WorksheetWriter

from budgetbook.xlsx.sheet_xml import dimension, rows_xml, splice

VALUES = [None, "", "plain", "  lead", "trail ", " ", "a & b <c> \"d\" 'e'", "line\r\nbreak\ttab", "_x000A_",
          "=SUM(A1:A2)", "=A1&\"<x>\"", "#N/A", 0, 1, -2.5, 1 / 3, 1e300, 2**60, math.nan, math.inf,
          np.float64(0.1), True, False]


def _openpyxl_sheet(cells: list[tuple[int, int, object, bool, str | None]], heights: dict[int, float]) -> bytes:
    """The sheet part openpyxl writes for `cells` ((row, col, value, bold, data type to force))."""
    wb = Workbook()
    ws = wb.active
    for row, col, value, bold, kind in cells:
        cell = ws.cell(row, col)
        cell.value = value
        if kind:
            cell.data_type = kind
        if bold:
            cell.font = Font(bold=True)
    for row, height in heights.items():
        ws.row_dimensions[row].height = height
    writer = WorksheetWriter(ws, io.BytesIO())
    writer.write()
    return writer.read()


def test_rows_are_the_ones_openpyxl_writes():
    cells = []
    for i, value in enumerate(VALUES):
        cells.append((2 + i, 1 + i % 3, value, i % 2 == 0, None))
        if isinstance(value, str):  # and as plan text: text whatever it starts with
            cells.append((2 + i, 5, value, i % 2 == 1, "s"))
    cells.append((40, 2, None, False, None))  # a cell openpyxl leaves out: its row stays
    heights = {1: 30.0, 3: 45.0, 41: 12.5, 50: 20.0}  # before, on and after the rows with cells
    expected = _openpyxl_sheet(cells, heights)

    wb = Workbook()
    ws = wb.active
    bold = ws.cell(1, 1)
    bold.font = Font(bold=True)
    style = wb._cell_styles.add(bold._style)
    stored = []
    for row, col, value, styled, kind in sorted(cells, key=lambda c: (c[0], c[1])):
        probe = ws.cell(100, 100)
        probe.value = value
        stored.append((row, col, probe._value, kind or probe.data_type, style if styled else 0))
    for row, height in heights.items():
        ws.row_dimensions[row].height = height
    attributes = {row: list(dim) for row, dim in ws.row_dimensions.items()}
    head, tail = splice(_openpyxl_sheet([], heights), dimension((row, col) for row, col, *_ in cells))
    ours = head + "".join(rows_xml(stored, attributes, lambda row, col: None)).encode() + tail
    assert ours == expected


def test_formula_values_are_cached_with_their_type():
    rows = "".join(rows_xml([(1, 1, "=1/0", "f", 0), (1, 2, "=A1", "f", 3), (2, 1, "=B1", "f", 0)], {},
                            lambda row, col: {(1, 1): ("e", "#DIV/0!"), (1, 2): ("", "0.5")}.get((row, col))))
    assert rows == ('<row r="1"><c r="A1" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="B1" s="3"><f>A1</f><v>0.5</v>'
                    '</c></row><row r="2"><c r="A2"><f>B1</f><v /></c></row>')


def test_an_empty_sheet_keeps_openpyxl_s_dimension():
    part = _openpyxl_sheet([], {})
    assert dimension([]) is None and b"".join(splice(part, None)) == part
