"""The lean reader's two ends: which parts the safety scan hands it, and the workbook assembled from them.

`xml_scan` asks `LeanReader.part` for a collector as each XML part starts
(`lean_parts`: a worksheet, the shared strings, the workbook, its
relationships, the styles); `finish` puts them together as openpyxl's reader
would (`openpyxl.reader.excel.ExcelReader`, `reader.workbook.WorkbookParser`):
the sheets of `xl/workbook.xml` in tab order, each found through the
workbook's relationships (one that is not in the package skipped, a
chartsheet kept as a title), the shared strings of the part the content
types name, the defined names split into workbook-scoped and sheet-scoped.
Whatever it would read differently raises `LeanUnsupported` (see `lean_parts`).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from .cell_grid import col_letters
from .date_formats import BUILTIN_DATE_FORMATS, is_date_format
from .lean_book import LeanChartsheet, LeanName, LeanSheet, LeanWorkbook
from .lean_parts import (
    _REL_ID,
    SHARED_STRINGS_TYPE,
    STYLES_PART,
    WORKBOOK_PART,
    WORKBOOK_RELS,
    LeanUnsupported,
    _Collected,
    _Sheet,
    _Strings,
)
from .package import overrides

__all__ = ["LeanReader", "LeanUnsupported"]

_WORKBOOK_TYPES = (  # the order openpyxl's `_find_workbook_part` tries them in
    "application/vnd.ms-excel.template.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
)
_STATES = ("visible", "hidden", "veryHidden")
_BAD_TITLE = re.compile(r"[\\*?:/\[\]]")  # openpyxl refuses such a title
_NOT_GLOBAL = ("_xlnm.Print_Titles", "_xlnm.Print_Area", "_xlnm._FilterDatabase")
_RESERVED = re.compile(r"^_xlnm\.(Print_Area|Print_Titles|Criteria|_FilterDatabase|Extract|Consolidate_Area|"
                       r"Sheet_Title)")


class LeanReader:
    """Collects a package's parts during the safety scan; `finish` gives the workbook or raises LeanUnsupported."""

    def __init__(self) -> None:
        self.members: set[str] = set()
        self.sheets: dict[str, _Sheet] = {}
        self.strings: dict[str, _Strings] = {}
        self.other: dict[str, _Collected] = {}
        self._targets: dict[str, str] | None = None  # part -> relationship type, of every sheet of the workbook
        self.workbook: LeanWorkbook | None = None     # once assembled
        self.unsupported: str | None = None           # why not, when it could not be

    def assemble(self, names: list[str], content_types: bytes) -> None:
        """The scan is over: assemble the workbook (`workbook`), or say why the lean reader cannot (`unsupported`)."""
        try:
            self.workbook = self.finish(names, content_types)
        except LeanUnsupported as exc:
            self.unsupported = str(exc)

    def part(self, name: str, root: str) -> Any:
        """The collector for XML part `name` (root element `root`), or None when nothing in it is read."""
        if name in (WORKBOOK_PART, WORKBOOK_RELS, STYLES_PART):
            self.other[name] = _Collected(root)
            return self.other[name]
        if root == "sst":
            self.strings[name] = _Strings()
            return self.strings[name]
        kind = self._sheet_targets().get(name)
        if kind is not None and "chartsheet" not in kind:
            self.sheets[name] = _Sheet()  # openpyxl reads any part a sheet relationship names as a worksheet
            return self.sheets[name]
        return None

    def _sheet_targets(self) -> dict[str, str]:
        """Each sheet's part and relationship type (the scan reads the workbook and its relationships first)."""
        if self._targets is None:
            rels = self.other.get(WORKBOOK_RELS)
            found = {}
            for target, kind, mode in (rels.rels.values() if rels is not None else ()):
                if mode != "External":
                    found[_resolve(target)] = kind
            self._targets = found
        return self._targets

    def finish(self, names: list[str], content_types: bytes) -> LeanWorkbook:
        """The workbook as openpyxl would load it from these parts; LeanUnsupported where it might not."""
        self.members = set(names)
        for collector in (*self.other.values(), *self.strings.values(), *self.sheets.values()):
            if collector.problem is not None:
                raise LeanUnsupported(collector.problem)
        listed = overrides(content_types)
        book_part = next((part for kind in _WORKBOOK_TYPES for part, ct in listed if ct == kind), None)
        workbook, rels = self.other.get(WORKBOOK_PART), self.other.get(WORKBOOK_RELS)
        if book_part != WORKBOOK_PART or workbook is None or rels is None or workbook.root != "workbook":
            raise LeanUnsupported("the workbook part is not where openpyxl's reader is sure to find it")
        if workbook.flags:
            raise LeanUnsupported(", ".join(sorted(workbook.flags)))
        strings = self._shared_strings(listed)
        date_styles, style_count = self._styles()
        sheets: list[LeanSheet | LeanChartsheet] = []
        for attrs in workbook.sheets:
            sheet = self._sheet(attrs, rels, strings, date_styles, style_count)
            if sheet is not None:
                if not sheet.title or _BAD_TITLE.search(sheet.title) or \
                        sheet.title.lower() in {s.title.lower() for s in sheets}:
                    raise LeanUnsupported("a sheet title openpyxl refuses or renames")
                sheets.append(sheet)
        return LeanWorkbook(sheets, _names(workbook.names, sheets))

    def _shared_strings(self, listed: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
        """(as openpyxl reads them, as stored) of the shared strings part the content types name."""
        part = next((part for part, ct in listed if ct == SHARED_STRINGS_TYPE), None)
        if part is None:
            return [], []
        if part not in self.members or part not in self.strings:
            raise LeanUnsupported("the shared strings part is missing or not a string table")
        raw = self.strings[part].items
        return [text.replace("x005F_", "") for text in raw], raw

    def _styles(self) -> tuple[set[int], int]:
        """(the cell styles whose number format is a date's, the number of cell styles)."""
        styles = self.other.get(STYLES_PART)
        if styles is None:
            return set(), 1  # openpyxl's default workbook has one cell style
        if styles.root != "styleSheet" or not styles.xfs:
            raise LeanUnsupported("a style sheet openpyxl may not read")
        dates = set()
        for index, fmt_id in enumerate(styles.xfs):
            code = styles.formats.get(fmt_id)
            if is_date_format(code) if code is not None else fmt_id in BUILTIN_DATE_FORMATS:
                dates.add(index)
        return dates, len(styles.xfs)

    def _sheet(self, attrs: dict[str, str], rels: _Collected, strings: tuple[list[str], list[str]],
               date_styles: set[int], style_count: int) -> LeanSheet | LeanChartsheet | None:
        title, state, rel_id = attrs.get("name", ""), attrs.get("state", "visible"), attrs.get(_REL_ID)
        if not rel_id:
            raise LeanUnsupported("a sheet without a relationship")  # openpyxl warns and drops it
        if rel_id not in rels.rels or state not in _STATES:
            raise LeanUnsupported("a sheet openpyxl cannot place")
        target, kind, mode = rels.rels[rel_id]
        part = target if mode == "External" else _resolve(target)
        if part not in self.members:
            return None  # openpyxl skips it too
        if "chartsheet" in kind:
            return LeanChartsheet(title, state)
        collected = self.sheets.get(part)
        if collected is None or collected.depth or collected.capture is not None:
            raise LeanUnsupported("a sheet part that is not XML the reader followed")
        if collected.max_style >= style_count:
            raise LeanUnsupported("a cell style the workbook does not define")
        if not collected.styled.isdisjoint(date_styles):
            raise LeanUnsupported("a number in a date format")  # openpyxl makes it a datetime
        shown, stored = strings
        cells, texts = collected.sheet._cells, collected.sheet._texts
        for row, column, index in collected.strings:
            try:
                at = int(index)
                cells.resolve(row, column, index, shown[at])
            except (ValueError, IndexError):
                raise LeanUnsupported("a shared string index openpyxl cannot read") from None
            if at >= 0:
                texts[f"{col_letters(column)}{row}"] = stored[at]
        collected.strings = []
        sheet = collected.sheet
        sheet.title, sheet.sheet_state = title, state
        return sheet


def _resolve(target: str) -> str:
    """A workbook relationship's target as a part name (`openpyxl.packaging.relationship.get_dependents`)."""
    return target[1:] if target.startswith("/") else posixpath.normpath(posixpath.join("xl", target))


def _names(found: list[tuple[dict[str, str], str | None]], sheets: list[Any]) -> dict[str, LeanName]:
    """Workbook-scoped names (`WorkbookParser.assign_names`); a sheet-scoped one goes to its sheet."""
    out: dict[str, LeanName] = {}
    for attrs, text in found:
        name = attrs.get("name")
        if name is None:
            raise LeanUnsupported("a defined name without a name")
        local = attrs.get("localSheetId")
        if local is None:
            if name not in _NOT_GLOBAL:
                out[name] = LeanName(name, text, None)
            continue
        try:
            index = int(local)
        except ValueError:
            raise LeanUnsupported("a sheet scope openpyxl cannot read") from None
        if not 0 <= index < len(sheets):
            raise LeanUnsupported("a name scoped to a sheet that is not there")  # openpyxl warns and drops it
        if _RESERVED.match(name):
            continue  # print titles and areas become print settings in openpyxl; the other reserved names go
        if not isinstance(sheets[index], LeanSheet):
            raise LeanUnsupported("a name scoped to a chartsheet")
        sheets[index].defined_names[name] = LeanName(name, text, index)
    return out
