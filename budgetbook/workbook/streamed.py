"""The workbook `generate` writes, its cells kept out of openpyxl: the blueprint's cells go into the package.

openpyxl renders everything that is not a cell (styles, names, validation, conditional formats, charts,
print setup, widths, heights, panes, protection: `openpyxl_book.to_openpyxl` with a `cells` hook) and the
hidden sheets of the embedded plan and actuals (a few cells each, `build`); the blueprint's cells are never
openpyxl `Cell`s (a dozen attributes and a style array each: on the largest portfolio ~140 MB and most of
the save's time). Each cell is taken three times from the blueprint, in the order openpyxl writes cells:

1. while rendering (`StreamedBook`): each look (style, number format) registered in openpyxl's style
   tables, and its cell style index taken, in the order openpyxl's save would take them, so `styles.xml`
   is the same; a value only openpyxl's own way can write (a date, a decimal...) raises `Unstreamable`
   and the book is built the old way;
2. for the evaluator (`plain_cells`): (row, column, value, data type) as openpyxl would hold them;
3. for the package (`stored_cells`): the same with the style index, written by `xlsx.sheet_xml`.

A cell as stored is the one `openpyxl_book._render_cells` makes: plan text escaped (`stored_text`) and
always text, clipped to 32,767 characters like any text; other text starting with `=` a formula, an
error code an error; numbers and booleans as they are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.cell.cell import Cell as XlCell

from ..sheetkit.grid import Blueprint, Sheet
from ..xlsx.cell_grid import PlainCell
from ..xlsx.sheet_xml import StoredCell, dimension
from .computed import value_of
from .openpyxl_book import CELL_TEXT, stored_text, style_cell, to_openpyxl


class Unstreamable(Exception):
    """A cell value that only openpyxl's own way writes (or refuses): the book is built that way."""


def stored(value: Any, text: bool) -> tuple[Any, str]:
    """(the value as stored, openpyxl's data type) of a blueprint cell's value (`text`: plan text)."""
    kind = type(value)
    if kind is str:
        if text:
            return stored_text(value)[:CELL_TEXT], "s"
        if ILLEGAL_CHARACTERS_RE.search(value):
            raise Unstreamable("a control character outside plan text")  # openpyxl refuses it: let it say so
        value = value[:CELL_TEXT]
        if len(value) > 1 and value[0] == "=":
            return value, "f"
        return value, "e" if value in ERROR_CODES else "s"
    if value is None or kind is int or (kind is not bool and isinstance(value, float)):
        return value, "n"
    if kind is bool:
        return value, "b"
    raise Unstreamable(f"a cell value of type {kind.__name__}")


class StreamedBook:
    """The openpyxl workbook of everything but the blueprint's cells (`wb`), and those cells.

    Takes the blueprint: its sheets' cells are put in row and column order, and the rest of it (the
    registry of names, ~60 MB on the largest portfolio) is not held once the workbook is rendered.
    """

    def __init__(self, book: Blueprint):
        self.sheets: list[Sheet] = list(book.sheets)
        self.looks: dict[tuple[str, Any], int] = {}  # (style, number format) -> cell style index (0: none)
        self.formula_cells = 0
        self.wb = to_openpyxl(book, cells=self._register)

    def _register(self, ws: Any, sheet: Sheet) -> None:
        """Check every value, and give each look its style index, as openpyxl's save would in this order."""
        sheet.cells = dict(sorted(sheet.cells.items()))  # the order openpyxl writes: no pass sorts again
        looks, styles = self.looks, ws.parent._cell_styles
        for (row, col), cell in sheet.cells.items():
            _, kind = stored(value_of(cell.value), cell.is_text)
            if kind == "f":
                self.formula_cells += 1
            look = (cell.style, value_of(cell.number_format))
            if look not in looks:
                scratch = XlCell(ws, row, col)  # never in the sheet: its style only
                style_cell(scratch, *look)
                looks[look] = styles.add(scratch._style) if scratch.has_style else 0

    def plain_cells(self) -> dict[str, Iterator[PlainCell]]:
        """{sheet title: its cells as the evaluator reads them (`xlsx.cell_grid.CellGrid`)}."""
        return {sheet.title: _plain(sheet) for sheet in self.sheets}

    def stored_cells(self, sheet: Sheet) -> Iterator[StoredCell]:
        """The sheet's cells as written, in row and column order, each with its cell style index."""
        looks = self.looks
        for (row, col), cell in sheet.cells.items():
            value, kind = stored(value_of(cell.value), cell.is_text)
            yield row, col, value, kind, looks[(cell.style, value_of(cell.number_format))]

    def dimension(self, sheet: Sheet) -> str | None:
        """The sheet's `<dimension>` as openpyxl gives it for the cells (None: it holds none)."""
        return dimension(sheet.cells)

    def row_attributes(self, title: str) -> dict[int, list[tuple[str, str]]]:
        """{row: its `<row>` attributes} of the rows openpyxl holds a dimension of (a height)."""
        return {row: list(dim) for row, dim in self.wb[title].row_dimensions.items()}


def _plain(sheet: Sheet) -> Iterator[PlainCell]:
    for (row, col), cell in sheet.cells.items():
        value, kind = stored(value_of(cell.value), cell.is_text)
        yield row, col, value, kind
