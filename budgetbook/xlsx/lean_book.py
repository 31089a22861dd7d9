"""A workbook as the lean reader gives it: cells, formulas, names, hidden flags; the openpyxl shape, none of its cost.

`check`, `extract`, `diff` and `show BOOK` read a workbook's cells, formulas,
defined names and what is hidden, never its styles. openpyxl builds a dozen
descriptor-checked objects per cell to give them (~1.5 s at 16,000 formula
cells); these classes hold only what those commands read, under the names
openpyxl gives them (`wb[title]`, `ws._cells`, `cell.value`, `cell.data_type`,
`ws.row_dimensions`, `wb.defined_names`, ...), so every reader of a workbook
works on either. The values are the ones openpyxl gives for the same file
(`lean_parts` parses it the way openpyxl's reader does): the review tests hold
both to the same findings. Built by `lean_parts`, in the safety scan's one
pass over the package (`xml_scan`).
"""

from __future__ import annotations

import re
from typing import Any

from .cell_grid import col_index, col_letters
from .xstring import stored_texts, unescape

_COORDINATE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")


class LeanCell:
    """One stored cell: openpyxl's `value` and `data_type` (`f` formula, `s` text, `n`, `b`, `e`, `d`)."""

    __slots__ = ("row", "column", "value", "data_type")

    def __init__(self, row: int, column: int, value: Any, data_type: str):
        self.row, self.column, self.value, self.data_type = row, column, value, data_type

    @property
    def coordinate(self) -> str:
        return f"{col_letters(self.column)}{self.row}"

    def __repr__(self) -> str:
        return f"<LeanCell {self.coordinate} {self.data_type} {self.value!r}>"


class Dimension:
    """A row's or a column range's hidden flag (and a column range's `min`/`max`), as openpyxl's dimensions."""

    __slots__ = ("hidden", "min", "max")

    def __init__(self, hidden: bool, low: int | None = None, high: int | None = None):
        self.hidden, self.min, self.max = hidden, low, high


class LeanName:
    """A defined name: its text (`attr_text`, openpyxl's spelling) and its sheet scope (`localSheetId`)."""

    __slots__ = ("name", "attr_text", "localSheetId")

    def __init__(self, name: str, attr_text: str | None, local_sheet_id: int | None):
        self.name, self.attr_text, self.localSheetId = name, attr_text, local_sheet_id

    @property
    def value(self) -> str | None:
        return self.attr_text


class LeanSheet:
    """A worksheet's cells by (row, column), its hidden rows and columns, its state (`visible`, `hidden`...)."""

    def __init__(self, title: str, state: str):
        self.title = title
        self.sheet_state = state
        self._cells: dict[tuple[int, int], LeanCell] = {}
        self.row_dimensions: dict[int, Dimension] = {}
        self.column_dimensions: dict[str, Dimension] = {}
        self.defined_names: dict[str, LeanName] = {}  # sheet-scoped names (budgetbook writes none)
        self.array_formulae: dict[str, str] = {}      # cell -> the range an array formula fills
        self._texts: dict[str, str] = {}              # cell -> its text exactly as stored (`stored_texts`)
        self._all_refs = True                         # every cell said where it is (`r`): `_texts` is complete

    def cell(self, row: int, column: int) -> LeanCell:
        """The cell at (row, column); an empty one, not stored, where the sheet holds none."""
        found = self._cells.get((row, column))
        return found if found is not None else LeanCell(row, column, None, "n")

    def __getitem__(self, ref: str) -> LeanCell:
        match = _COORDINATE.match(ref)
        if match is None:
            raise ValueError(f"{ref} is not one cell")
        return self.cell(int(match.group(2)), col_index(match.group(1)))

    def stored_texts(self) -> dict[str, str] | None:
        """{`B4`: text} of every text cell, decoded exactly (`xstring.stored_texts`); None if a cell had no `r`."""
        return {ref: unescape(raw) for ref, raw in self._texts.items()} if self._all_refs else None

    @property
    def max_row(self) -> int:
        return max((row for row, _ in self._cells), default=1)

    @property
    def max_column(self) -> int:
        return max((col for _, col in self._cells), default=1)


class LeanChartsheet:
    """A chartsheet: a title in the tab order, no cells."""

    def __init__(self, title: str, state: str):
        self.title = title
        self.sheet_state = state


class LeanWorkbook:
    """Sheets in tab order (`_sheets`, worksheets and chartsheets), workbook-scoped names (`defined_names`)."""

    def __init__(self, sheets: list[LeanSheet | LeanChartsheet], names: dict[str, LeanName]):
        self._sheets = sheets
        self.defined_names = names
        self._external_links: list[Any] = []  # the lean reader leaves a linked workbook to openpyxl
        self._by_title = {sheet.title: sheet for sheet in sheets}

    @property
    def sheetnames(self) -> list[str]:
        return [sheet.title for sheet in self._sheets]

    @property
    def worksheets(self) -> list[LeanSheet]:
        return [sheet for sheet in self._sheets if isinstance(sheet, LeanSheet)]

    def __getitem__(self, title: str) -> Any:
        try:
            return self._by_title[title]
        except KeyError:
            raise KeyError(f"Worksheet {title} does not exist.") from None

    def __contains__(self, title: str) -> bool:
        return title in self._by_title

    def stored_texts(self, title: str) -> dict[str, str] | None:
        sheet = self._by_title.get(title)
        return sheet.stored_texts() if isinstance(sheet, LeanSheet) else None


def stored_texts_of(wb: Any, data: bytes, title: str) -> dict[str, str] | None:
    """Sheet `title`'s text cells as stored in the package: from the lean reader's pass when it read the
    workbook, else parsed from the package bytes (`xstring.stored_texts`; None without them)."""
    if isinstance(wb, LeanWorkbook):
        return wb.stored_texts(title)
    return stored_texts(data, title) if data else None
