"""The lean reader: a workbook's cells, formulas and names, collected in the safety scan's one expat pass.

`xml_scan` streams every XML part of a package through expat once, to refuse
what is hostile and count what loading would build. With a `LeanReader` the
same pass also collects what `check`, `extract`, `diff` and `show BOOK` read
(`lean_book`): per worksheet part its cells (value, formula, shared formulas
translated, cached values left out, as openpyxl does), hidden rows and column
ranges; the shared strings; the workbook's sheets, states and defined names;
the styles' date formats (openpyxl turns a number in a date format into a
datetime). `finish` assembles them in tab order, the way openpyxl's reader
does (`openpyxl.reader.excel`, `worksheet._reader`: the same rules, rule by
rule, so a cell reads the same either way).

What it does not read the way openpyxl would (an array formula's object, a
date-1904 workbook, links to other workbooks, a sheet title openpyxl would
rename, odd relationships, a cell value openpyxl cannot cast) raises
`LeanUnsupported`, and the caller loads the verified bytes with openpyxl
instead: the rare file pays for openpyxl, never a different answer.
"""

from __future__ import annotations

import re
from typing import Any

from .cell_grid import col_index, col_letters
from .lean_book import Dimension, LeanSheet

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL_ID = "http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships}"
C, V, F, IS, T, R, RPH = (_MAIN + tag for tag in ("c", "v", "f", "is", "t", "r", "rPh"))
ROW, COL = _MAIN + "row", _MAIN + "col"
WORKBOOK_PART = "xl/workbook.xml"
WORKBOOK_RELS = "xl/_rels/workbook.xml.rels"
STYLES_PART = "xl/styles.xml"  # where openpyxl looks for the styles, whatever the relationships say
SHARED_STRINGS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_REF = re.compile(r"^([A-Z]{1,3})([0-9]+)$")
_FALSE = ("false", "f", "0")


class LeanUnsupported(Exception):
    """The lean reader does not read this package as openpyxl would: load it with openpyxl."""


def _flag(value: str | None) -> bool:
    """An OOXML boolean attribute as openpyxl's `Bool` reads it: absent, empty, `0`, `f`, `false` are False."""
    return bool(value) and value not in _FALSE


def _cast_number(text: str) -> int | float:
    """openpyxl's `_cast_number`: a float when it has a point or an exponent, else an int."""
    try:
        return float(text) if "." in text or "E" in text or "e" in text else int(text)
    except ValueError:
        raise LeanUnsupported("a number openpyxl cannot read") from None


def _row_col(ref: str) -> tuple[int, int]:
    match = _REF.match(ref)
    if match is None:
        raise LeanUnsupported(f"cell reference {ref!r}")
    letters, row = match.groups()
    return int(row), col_index(letters)


class _Part:
    """A part's collector. Its handlers never raise (the scan must go on to the end of the part, and of the
    package): what the reader cannot follow is kept as `problem`, and the collector is detached."""

    problem: str | None = None
    detach: Any = None  # set by the scan: stops handing this part's events to the collector

    def fail(self, exc: LeanUnsupported) -> None:
        self.problem = str(exc)
        if self.detach is not None:
            self.detach()


class _Sheet(_Part):
    """One worksheet part's cells and dimensions, as openpyxl's `WorkSheetParser` reads them."""

    def __init__(self) -> None:
        self.sheet = LeanSheet("", "visible")
        self.cells = self.sheet._cells
        self.row = 0          # openpyxl's row and column counters: a cell or row without `r` follows the last
        self.col = 0
        self.shared: dict[str, Any] = {}   # shared formula index -> openpyxl's Translator of its master
        self.strings: list[tuple[int, int, str]] = []  # (row, column, index) of a shared string, resolved last
        self.styled: set[int] = set()  # the styles of number cells: a date format makes a date
        self.max_style = 0
        self.depth = 0        # inside a <c>: 1 for its children, 2 for theirs...
        self.capture: list[str] | None = None
        self._cell()

    def _cell(self) -> None:
        self.ref: str | None = None
        self.kind: str = "n"
        self.style = 0
        self.v: str | None = None
        self.f: str | None = None
        self.f_attrs: dict[str, str] | None = None
        self.inline: str | None = None  # the <is> text, once an <is> is seen
        self.run_texts: list[str] = []
        self.plain: str | None = None
        self.where = ""       # which text a <t> is: "is" (plain), "r" (a run), "" (none of ours)

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        try:
            if self.capture is not None:
                raise LeanUnsupported("markup inside a value")  # ElementTree would keep only the text before it
            if tag == C:
                self._cell()
                self.depth = 1
                self.ref, self.kind = attrs.get("r"), attrs.get("t", "n")
                style = attrs.get("s")
                if style:
                    try:
                        self.style = int(style)
                    except ValueError:
                        raise LeanUnsupported("a style id openpyxl cannot read") from None
                    self.max_style = max(self.max_style, self.style)
                return
            if not self.depth:
                if tag == ROW:
                    self._row(attrs)
                elif tag == COL:
                    self._col(attrs)
                return
            self.depth += 1
            depth = self.depth
            if depth == 2:
                if tag == V and self.v is None:
                    self.capture = []
                elif tag == F and self.f_attrs is None:
                    self.f_attrs = attrs
                    self.capture = []
                elif tag == IS and self.inline is None:
                    self.inline, self.where = "", "is"
            elif self.where:
                if tag == T and (depth == 3 or (depth == 4 and self.where == "r")):
                    self.capture = []
                elif depth == 3:
                    self.where = "r" if tag == R else "is-other" if tag == RPH else "is"
        except LeanUnsupported as exc:
            self.fail(exc)

    def end(self, tag: str) -> None:
        try:
            if not self.depth:
                return
            depth = self.depth
            self.depth -= 1
            if self.capture is not None:
                text = "".join(self.capture)
                self.capture = None
                if depth == 2 and tag == V:
                    self.v = text
                elif depth == 2 and tag == F:
                    self.f = text
                elif tag == T and depth == 3 and self.where == "is":
                    self.plain = text
                elif tag == T and depth == 4 and self.where == "r":
                    self.run_texts.append(text)
                return
            if depth == 3 and self.where in ("r", "is-other"):
                self.where = "is"
            elif depth == 2 and tag == IS:
                self.inline = "".join(([self.plain] if self.plain is not None else []) + self.run_texts)
                self.where = ""
            elif depth == 1:
                self._store()
        except LeanUnsupported as exc:
            self.fail(exc)

    def text(self, data: str) -> None:
        if self.capture is not None:
            self.capture.append(data)

    def _row(self, attrs: dict[str, str]) -> None:
        if "r" in attrs:
            try:
                self.row = int(attrs["r"])
            except ValueError:
                raise LeanUnsupported("a row number openpyxl reads as a float") from None
        else:
            self.row += 1
        self.col = 0
        if {k for k in attrs if not k.startswith("{") and "}" not in k} - {"r", "spans"}:
            self.sheet.row_dimensions[self.row] = Dimension(_flag(attrs.get("hidden")))

    def _col(self, attrs: dict[str, str]) -> None:
        try:
            low = int(attrs["min"])
            high = int(attrs["max"]) if "max" in attrs else None
        except (KeyError, ValueError):
            raise LeanUnsupported("a column range openpyxl cannot read") from None
        self.sheet.column_dimensions[col_letters(low)] = Dimension(_flag(attrs.get("hidden")), low, high)

    def _store(self) -> None:
        """The cell as `WorkSheetParser.parse_cell` makes it, kept under its (row, column)."""
        ref = self.ref
        if ref:
            row, column = _row_col(ref)
            self.col = column
        else:
            self.col += 1
            row, column = self.row, self.col
            self.sheet._all_refs = False
        self.put(ref, row, column, self.kind, self.style, self.v, self.f, self.f_attrs, self.inline)

    def put(self, ref: str | None, row: int, column: int, kind: str, style: int, v: str | None, f: str | None,
            f_attrs: dict[str, str] | None, inline: str | None) -> None:
        """Keep one cell: its reference, place, `t`, `s`, `<v>` and `<f>` texts, `<f>`'s attributes, `<is>` text
        (`xml_replay` hands a plain cell here straight from its text, without the element events)."""
        value: Any = None if kind == "inlineStr" else (v or None)
        data_type = kind
        if f_attrs is not None:
            data_type, value = "f", self._formula(ref, f or None, f_attrs)
        elif value is not None:
            if kind == "n":
                value = _cast_number(value)
                if style:
                    self.styled.add(style)
            elif kind == "s":
                self.strings.append((row, column, value))
            elif kind == "b":
                try:
                    value = bool(int(value))
                except ValueError:
                    raise LeanUnsupported("a boolean openpyxl cannot read") from None
            elif kind == "str":
                data_type = "s"
            elif kind == "d":
                raise LeanUnsupported("an ISO date cell")
        elif kind == "inlineStr" and inline is not None:
            data_type, value = "s", inline
            if ref:
                self.sheet._texts[ref] = inline
        self.cells.put(row, column, value, data_type)

    def _formula(self, ref: str | None, text: str | None, attrs: dict[str, str]) -> str:
        """`WorkSheetParser.parse_formula`: `=` and the text; a shared formula's dependents translated."""
        kind = attrs.get("t")
        value = "=" + (text or "")
        if kind == "shared":
            index = attrs.get("si", "")
            if index in self.shared:
                return self.shared[index].translate_formula(ref)
            if value != "=":
                from openpyxl.formula.translate import Translator  # loaded with the reader already

                self.shared[index] = Translator(value, ref)
        elif kind in ("array", "dataTable"):
            raise LeanUnsupported("an array or data-table formula")
        return value


class _Strings(_Part):
    """The shared strings: each `<si>`'s text (its `<t>`, then its runs' `<t>`s; phonetic runs left out)."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.depth = 0
        self.where = ""
        self.capture: list[str] | None = None
        self.plain: str | None = None
        self.runs: list[str] = []

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        try:
            if self.capture is not None:
                raise LeanUnsupported("markup inside a shared string")
            self.depth += 1
            if self.depth == 2:
                self.plain, self.runs, self.where = None, [], "si"
            elif self.depth == 3:
                if tag == T:
                    self.capture = []
                self.where = "r" if tag == R else "si" if tag == T else "other"
            elif self.depth == 4 and tag == T and self.where == "r":
                self.capture = []
        except LeanUnsupported as exc:
            self.fail(exc)

    def end(self, tag: str) -> None:
        try:
            depth = self.depth
            self.depth -= 1
            if self.capture is not None:
                text, self.capture = "".join(self.capture), None
                if depth == 3:
                    self.plain = text
                else:
                    self.runs.append(text)
            if depth == 2:
                self.items.append("".join(([self.plain] if self.plain is not None else []) + self.runs))
        except LeanUnsupported as exc:
            self.fail(exc)

    def text(self, data: str) -> None:
        if self.capture is not None:
            self.capture.append(data)


class _Collected(_Part):
    """Attributes (and a defined name's text) of the few elements read from the workbook, rels and styles."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.sheets: list[dict[str, str]] = []
        self.names: list[tuple[dict[str, str], str | None]] = []
        self.rels: dict[str, tuple[str, str, str]] = {}  # id -> (target, type, mode)
        self.formats: dict[int, str] = {}
        self.xfs: list[int] = []
        self.in_xfs = False
        self.flags: set[str] = set()
        self.capture: list[str] | None = None
        self.name_attrs: dict[str, str] = {}

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        try:
            local = tag.rpartition("}")[2]
            if self.root == "workbook":
                if local == "sheet":
                    self.sheets.append(attrs)
                elif local == "definedName":
                    self.name_attrs, self.capture = attrs, []
                elif local == "workbookPr" and _flag(attrs.get("date1904")):
                    self.flags.add("date1904")
                elif local == "externalReference":
                    self.flags.add("external")
            elif self.root == "Relationships" and tag == _PKG + "Relationship":
                self.rels[attrs.get("Id", "")] = (attrs.get("Target", ""), attrs.get("Type", ""),
                                                  attrs.get("TargetMode", ""))
            elif self.root == "styleSheet":
                if local == "numFmt":
                    try:
                        self.formats[int(attrs.get("numFmtId", ""))] = attrs.get("formatCode", "")
                    except ValueError:
                        raise LeanUnsupported("a number format id openpyxl cannot read") from None
                elif local == "cellXfs":
                    self.in_xfs = True
                elif local == "xf" and self.in_xfs:
                    try:
                        self.xfs.append(int(attrs.get("numFmtId", 0)))
                    except ValueError:
                        raise LeanUnsupported("a number format id openpyxl cannot read") from None
        except LeanUnsupported as exc:
            self.fail(exc)

    def end(self, tag: str) -> None:
        try:
            local = tag.rpartition("}")[2]
            if local == "definedName" and self.capture is not None:
                self.names.append((self.name_attrs, "".join(self.capture) or None))  # ElementTree's `.text`
                self.capture = None
            elif local == "cellXfs":
                self.in_xfs = False
        except LeanUnsupported as exc:
            self.fail(exc)

    def text(self, data: str) -> None:
        if self.capture is not None:
            self.capture.append(data)
