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
from collections.abc import Iterator
from typing import Any

from .cell_grid import COLUMN_BITS, col_index, col_letters
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


_SHIFT = COLUMN_BITS  # a cell's key is `packed_cell(0, row, column)`, inlined: read for every cell of a book
_COLUMN = (1 << _SHIFT) - 1


def _key(row: int, column: int) -> int:
    return row << _SHIFT | column


def _where(key: int) -> tuple[int, int]:
    """(row, column) of a cell's key."""
    return key >> _SHIFT, key & _COLUMN


def _implied(value: Any) -> str | None:
    """The data type a value alone tells: a formula's text starts with `=`; None for one that tells none."""
    kind = type(value)
    if kind is str:
        return "f" if value[:1] == "=" else "s"
    if kind is float or kind is int or value is None:
        return "n"
    return "b" if kind is bool else None


class CellStore:
    """A sheet's cells as openpyxl's `ws._cells` gives them (a mapping of (row, column) to a cell with `value`
    and `data_type`), held as one int key and the value per cell: a cell object is made when asked for.

    A `LeanCell` and a (row, column) tuple per cell were ~130 bytes a cell held all through `check` (~330,000
    cells in the largest book); a cell's data type is kept apart only where its value does not tell it
    (`_implied`: text that starts with `=`, an error, a blank text cell). In the order the cells were read.
    """

    __slots__ = ("held", "types")

    def __init__(self) -> None:
        self.held: dict[int, Any] = {}  # row << 15 | column -> value
        self.types: dict[int, str] = {}

    def put(self, row: int, column: int, value: Any, data_type: str) -> None:
        """Keep a cell (as `ws._cells[(row, column)] = cell`: a cell read again keeps its place)."""
        key = _key(row, column)
        self.held[key] = value
        if _implied(value) != data_type:
            self.types[key] = data_type
        elif self.types:
            self.types.pop(key, None)

    def resolve(self, row: int, column: int, held: Any, value: Any) -> None:
        """Put text `value` where the cell still holds `held` (a shared string's index: a cell read again in the
        same place since, which openpyxl keeps instead, holds another object)."""
        if self.held.get(_key(row, column), _ABSENT) is held:
            self.put(row, column, value, "s")

    def _type(self, key: int, value: Any) -> str:
        return (self.types.get(key) if self.types else None) or _implied(value) or "n"

    def _cell(self, key: int, value: Any) -> LeanCell:
        return LeanCell(*_where(key), value, self._type(key, value))

    def get(self, where: tuple[int, int], default: Any = None) -> Any:
        key = _key(*where)
        value = self.held.get(key, _ABSENT)
        return default if value is _ABSENT else self._cell(key, value)

    def __getitem__(self, where: tuple[int, int]) -> LeanCell:
        found = self.get(where)
        if found is None:
            raise KeyError(where)
        return found

    def __contains__(self, where: object) -> bool:
        if not isinstance(where, tuple) or len(where) != 2:
            return False
        return _key(*where) in self.held

    def __len__(self) -> int:
        return len(self.held)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return (_where(key) for key in self.held)

    def keys(self) -> Iterator[tuple[int, int]]:
        return iter(self)

    def values(self) -> Iterator[LeanCell]:
        cell = self._cell
        return (cell(key, value) for key, value in self.held.items())

    def items(self) -> Iterator[tuple[tuple[int, int], LeanCell]]:
        cell = self._cell
        return ((_where(key), cell(key, value)) for key, value in self.held.items())

    def plain(self) -> Iterator[tuple[int, int, Any, str]]:
        """(row, column, value, data type) of every cell, no cell object made (`cell_grid.CellGrid`)."""
        of = self._type
        return ((*_where(key), value, of(key, value)) for key, value in self.held.items())

    def texts(self) -> Iterator[tuple[int, int, str]]:
        """(row, column, text) of every cell holding text that is not a formula (`plain`'s, filtered without a
        tuple per formula cell: the labels `structure` reads, from a sheet that is mostly formulas)."""
        types = self.types
        for key, value in self.held.items():
            if type(value) is str and (types.get(key) or ("f" if value[:1] == "=" else "s")) != "f":  # `_type`
                yield (*_where(key), value)


_ABSENT = object()


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


def _place(ref: str) -> tuple[int, int]:
    """(row, column) of one cell's address (`D4`, `$D$4`), as a worksheet is indexed."""
    match = _COORDINATE.match(ref)
    if match is None:
        raise ValueError(f"{ref} is not one cell")
    return int(match.group(2)), col_index(match.group(1))


class LeanSheet:
    """A worksheet's cells by (row, column), its hidden rows and columns, its state (`visible`, `hidden`...)."""

    def __init__(self, title: str, state: str):
        self.title = title
        self.sheet_state = state
        self._cells = CellStore()
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
        return self.cell(*_place(ref))

    def value(self, ref: str) -> Any:
        """`self[ref].value`, no cell made (the audits read ~50,000 named cells of a big book one by one)."""
        return self._cells.held.get(_key(*_place(ref)))

    def stored_texts(self) -> dict[str, str] | None:
        """{`B4`: text} of every text cell, decoded exactly (`xstring.stored_texts`); None if a cell had no `r`."""
        return {ref: unescape(raw) for ref, raw in self._texts.items()} if self._all_refs else None

    @property
    def max_row(self) -> int:
        return max(self._cells.held, default=1 << _SHIFT) >> _SHIFT

    @property
    def max_column(self) -> int:
        return max((key & _COLUMN for key in self._cells.held), default=1)


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
