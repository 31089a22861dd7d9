"""The workbook `generate` writes, its cells kept out of openpyxl: the blueprint's cells go into the package.

openpyxl renders everything that is not a cell or a workbook-scoped name (styles, print titles, validation,
conditional formats, charts, print setup, widths, heights, panes, protection: `openpyxl_book.to_openpyxl`
with a `cells` hook) and the hidden sheets of the embedded plan and actuals (a few cells each, `build`);
the names go into `workbook.xml` as openpyxl writes them (`cached.with_names`); the blueprint's cells are never
openpyxl `Cell`s (a dozen attributes and a style array each: on the largest portfolio ~140 MB and most of
the save's time). As each sheet is rendered its cells are taken once (`StreamedBook`), in the order
openpyxl writes cells, into columns (`SheetCells`):

- each as stored, the way `openpyxl_book._render_cells` makes it (`stored`): plan text escaped
  (`stored_text`) and always text, clipped to 32,767 characters like any text; other text starting
  with `=` a formula, an error code an error; numbers and booleans as they are. A value only openpyxl's
  own way can write (a date, a decimal...) raises `Unstreamable`, and the book is built that way;
- each look (style, number format) registered in openpyxl's style tables, and its cell style index
  taken, in the order openpyxl's save takes them, so `styles.xml` is the one it writes.

The evaluator reads the columns (`plain_cells`, `xlsx.cell_grid.CellGrid`), and `cached.streamed_with_values`
writes them into each sheet's part (`xlsx.sheet_xml`) with their values.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.cell.cell import Cell as XlCell

from ..sheetkit.grid import Blueprint, Sheet
from ..xlsx.cell_grid import PlainCell
from ..xlsx.sheet_xml import StoredCell, dimension
from .computed import value_of
from .openpyxl_book import CELL_TEXT, defined_names, stored_text, style_cell, to_openpyxl


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


class SheetCells:
    """One sheet's cells as stored, in row and column order, in columns: ~20 bytes a cell beside its value,
    where the blueprint's `Cell` and its key took ~180 (the blueprint is not held once the book is rendered)."""

    __slots__ = ("title", "rows", "cols", "values", "kinds", "styles", "dimension")

    def __init__(self, title: str):
        self.title = title
        self.rows = array("I")
        self.cols = array("H")  # a sheet has 16,384 columns
        self.values: list[Any] = []  # as stored (`stored`)
        self.kinds = bytearray()  # openpyxl's data type, one ASCII letter a cell
        self.styles = array("I")  # the cell style index (0: none)
        self.dimension: str | None = None  # `A1:F20`, as openpyxl gives it (None: no cell)

    def plain(self) -> Iterator[PlainCell]:
        """(row, column, value, data type) of each cell, as the evaluator reads them."""
        return zip(self.rows, self.cols, self.values, self.kinds.decode("ascii"), strict=True)

    def stored(self) -> Iterator[StoredCell]:
        """(row, column, value, data type, cell style index) of each cell, as written."""
        return zip(self.rows, self.cols, self.values, self.kinds.decode("ascii"), self.styles, strict=True)


class StreamedBook:
    """The openpyxl workbook of everything but the blueprint's cells and names (`wb`), and those cells
    (`sheets`) and names (`names`: {name: reference}).

    Holds no part of the blueprint: the cells are taken as stored, a sheet at a time, as it is rendered.
    """

    def __init__(self, book: Blueprint):
        self.sheets: list[SheetCells] = []
        self.looks: dict[tuple[str, Any], int] = {}  # (style, number format) -> cell style index (0: none)
        self.formula_cells = 0
        # the names too are written into the package (`cached.with_names`): 18,000-65,535 of them made
        # openpyxl objects and serialized by openpyxl were ~13 % of `generate` at 16,000 formula cells
        self.names = defined_names(book)
        self.wb = to_openpyxl(book, cells=self._take, names=False)

    def _take(self, ws: Any, sheet: Sheet) -> None:
        """Take the sheet's cells as stored, each look given its style index as openpyxl's save would give
        it in this order (the first cell of each look, sheet by sheet, row by row)."""
        # the title openpyxl gave the sheet (it renames one that another's equals, whatever the case): the
        # values and the package's parts go by it
        if any(taken.title.upper() == ws.title.upper() for taken in self.sheets):
            raise Unstreamable("two sheets whose titles differ only in case")
        looks, styles = self.looks, ws.parent._cell_styles
        taken = SheetCells(ws.title)
        rows, cols, values, kinds, indices = taken.rows, taken.cols, taken.values, taken.kinds, taken.styles
        for (row, col), cell in sorted(sheet.cells.items()):
            value, kind = stored(value_of(cell.value), cell.is_text)
            look = (cell.style, value_of(cell.number_format))
            index = looks.get(look)
            if index is None:
                scratch = XlCell(ws, row, col)  # never in the sheet: its style only
                style_cell(scratch, *look)
                index = looks[look] = styles.add(scratch._style) if scratch.has_style else 0
            rows.append(row)
            cols.append(col)
            values.append(value)
            kinds += kind.encode("ascii")
            indices.append(index)
        self.formula_cells += kinds.count(b"f")
        taken.dimension = dimension(zip(rows, cols, strict=True))
        self.sheets.append(taken)

    def plain_cells(self) -> dict[str, Iterator[PlainCell]]:
        """{sheet title: its cells as the evaluator reads them (`xlsx.cell_grid.CellGrid`)}."""
        return {sheet.title: sheet.plain() for sheet in self.sheets}

    def row_attributes(self, title: str) -> dict[int, list[tuple[str, str]]]:
        """{row: its `<row>` attributes} of the rows openpyxl holds a dimension of (a height)."""
        return {row: list(dim) for row, dim in self.wb[title].row_dimensions.items()}
