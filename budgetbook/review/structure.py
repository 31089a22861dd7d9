"""The structure audit: the workbook must be the one its embedded plan's layout describes.

`check` reads figures by defined name and recomputes the reference from the
embedded plan, so a book whose hidden plan was edited (a market deleted from
it, that market's figures typed over) or whose names were moved (two price
names swapped) would otherwise pass: nothing outside the plan's layout was
ever looked at. Here every sheet, every defined name and every formula cell
must be accounted for by the layout, each name must still sit in the row
budgetbook labelled for it and in the grid of rows and columns it was written
in, and the stamp's digest must match the embedded plan.

What a user legitimately does is not a finding: inserted or deleted rows and
columns move names with their cells (the grid check allows any shift that keeps
rows and columns in order), and moving sheets about changes nothing checked here.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..ledger.embed import SHEET as ACTUALS_SHEET
from ..sheetkit.embed import SHEET as EMBED_SHEET
from ..workbook.computed import value_of
from ..workbook.stamp import VALUE_COL, read_stamp
from ..xlsx.a1 import ILLEGAL_CHARACTERS_RE, column_index_from_string, coordinate_from_string, get_column_letter
from ..xlsx.cell_grid import held_cells, held_texts
from ..xlsx.xstring import unescape
from .findings import WARNING, Finding
from .readback import OpenedWorkbook, single_cell
from .user_content import OursRead, added_cell, added_sheet

CAP = 12                  # findings of one sort listed one by one; the rest as one finding
LABEL_STYLES = ("label", "figure", "section")
BUILT_IN_PREFIX = "_xlnm."  # print areas, filters: Excel's and LibreOffice's own names


def audit_structure(book: OpenedWorkbook) -> list[Finding]:
    """`structure` findings (errors, bar a missing stamp): what the layout of the embedded plan does not explain."""
    ours = _Lazy(book)
    findings = _sheets(book, ours) + _unknown_names(book)
    placed = _placement(book)
    findings += placed
    findings += _unknown_formulas(book, ours)
    findings += _constants(book)
    findings += _stamp(book) + _baseline(book)
    return findings


def _structure(message: str, sheet: str | None = None, cell: str | None = None, name: str | None = None,
               severity: str = "") -> Finding:
    return Finding("structure", message, sheet, cell, name, severity=severity)


def _capped(findings: list[Finding], what: str) -> list[Finding]:
    """At most CAP findings of one sort, then one saying how many more (a deleted market is dozens of names)."""
    if len(findings) <= CAP:
        return findings
    rest = findings[CAP:]
    first = rest[0]
    return findings[:CAP] + [Finding(first.kind, f"and {len(rest)} more {what}", first.sheet, first.cell, first.name,
                                     severity=first.severity)]


# ---------------------------------------------------------------- sheets and names

def expected_sheets(book: OpenedWorkbook) -> list[str]:
    return [sheet.title for sheet in book.blueprint.sheets] + [EMBED_SHEET] + \
        ([ACTUALS_SHEET] if book.actuals is not None else [])


class _Lazy:
    """What budgetbook's formulas read (`user_content.OursRead`), built on first use: most books need none."""

    def __init__(self, book: OpenedWorkbook):
        self.book = book
        self._read: OursRead | None = None

    @property
    def read(self) -> OursRead:
        if self._read is None:
            self._read = OursRead(self.book)
        return self._read


def _sheets(book: OpenedWorkbook, ours: _Lazy) -> list[Finding]:
    """Sheets gone, and sheets added: the user's own (info) while no formula of ours reads them."""
    expected = expected_sheets(book)
    present = list(book.wb.sheetnames)
    findings = [_structure(f"sheet `{title}` is gone: budgetbook writes it for this plan", title)
                for title in expected if title not in present]
    for title in present:
        if title in expected:
            continue
        if ours.read.reads_sheet(title):
            findings.append(_structure(f"sheet `{title}` is not one budgetbook writes for this plan "
                                       "(added, renamed, or left from another plan), and budgetbook's formulas "
                                       "read it", title))
        else:
            findings.append(added_sheet(title))
    return findings


def _unknown_names(book: OpenedWorkbook) -> list[Finding]:
    """Workbook-scoped names the layout does not have, and sheet-scoped ones shadowing a layout name.

    A sheet-scoped name that shadows one of ours changes what that sheet's formulas read in Excel;
    any other is only a warning (`sheet_scoped_name`, from `readback`).
    """
    # the book's names not in the layout: a set of the book's names, not of the layout's (~250,000 on the
    # largest plan, most found by anchors: a set of them was 25 MB at check's peak)
    unknown = {name.lower() for name in book.wb.defined_names}
    for spec in book.layout:
        unknown.discard(spec.name.lower())
    findings = []
    for name, definition in book.wb.defined_names.items():
        if name.lower() not in unknown or name.startswith(BUILT_IN_PREFIX):
            continue
        text = definition.attr_text or ""
        sheet, cell = single_cell(text) or (None, None)
        findings.append(_structure(f"defined name `{name}` (`{_short(text)}`) is not one budgetbook writes for "
                                   "this plan", sheet, cell, name))
    scoped = {name.lower() for ws in book.wb.worksheets for name in getattr(ws, "defined_names", {}) or {}}
    shadowing = {spec.name.lower() for spec in book.layout if spec.name.lower() in scoped} if scoped else set()
    for ws in book.wb.worksheets:
        for name in getattr(ws, "defined_names", {}) or {}:
            if name.lower() in shadowing:
                findings.append(_structure(f"sheet-scoped name `{name}` on {ws.title} shadows the workbook's "
                                           f"`{name}`: formulas on {ws.title} read another cell", ws.title,
                                           None, name))
    return _capped(findings, "defined names budgetbook does not write")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


# ---------------------------------------------------------------- where each name points

def _placement(book: OpenedWorkbook) -> list[Finding]:
    """Each name on its sheet, in the row labelled for it, in the grid of rows and columns it was written in."""
    labels = _Labels(book)
    flagged: set[str] = set()
    findings: list[Finding] = []
    by_sheet: dict[str, _Placed] = {}
    moved = _moved_sheets(book)
    for spec in book.layout:
        where = book.locate(spec.name)
        if where is None:
            continue  # `missing`, reported by the input and formula audits
        sheet, cell = where
        if sheet != spec.sheet:
            findings.append(_structure(f"name `{spec.name}` now points at {sheet}!{cell}; budgetbook put it on "
                                       f"sheet {spec.sheet}", sheet, cell, spec.name))
            flagged.add(spec.name)
            continue
        labels.keep_only(sheet)
        if sheet not in moved and labels.kept(sheet):
            continue  # every name where it was written, beside every label: nothing to find, nothing to place
        row, col = _row_col(cell)
        gen_row, gen_col = (row, col) if cell == spec.cell else _row_col(spec.cell)  # mostly where written
        problem = labels.problem(spec, sheet, gen_row, gen_col, row, col)
        if problem is not None:
            findings.append(_structure(problem, sheet, cell, spec.name))
            flagged.add(spec.name)
        placed = by_sheet.get(sheet)
        if placed is None:
            placed = by_sheet[sheet] = _Placed()
        placed.add(spec, gen_row, gen_col, row, col)
    for sheet, placed in by_sheet.items():
        findings += _grid(sheet, placed, flagged)
    return _capped(findings, "names out of place")


def _moved_sheets(book: OpenedWorkbook) -> set[str]:
    """The sheets where some name no longer points at the cell it was written in (or is on another sheet)."""
    moved = set()
    for spec in book.layout:
        where = book.locate(spec.name)
        if where is not None and (where[1] != spec.cell or where[0] != spec.sheet):
            moved.add(spec.sheet)
            moved.add(where[0])
    return moved


class _Placed:
    """One sheet's names: each spec with its row and column as written and as they are now, the numbers in
    arrays (a tuple of five each was ~36 MB of the largest plan's `check`, at its peak)."""

    __slots__ = ("specs", "gen_rows", "gen_cols", "rows", "cols")

    def __init__(self) -> None:
        self.specs: list[Any] = []
        self.gen_rows, self.gen_cols, self.rows, self.cols = array("l"), array("l"), array("l"), array("l")

    def add(self, spec: Any, gen_row: int, gen_col: int, row: int, col: int) -> None:
        self.specs.append(spec)
        self.gen_rows.append(gen_row)
        self.gen_cols.append(gen_col)
        self.rows.append(row)
        self.cols.append(col)

    def __iter__(self) -> Iterator[tuple[Any, int, int, int, int]]:
        return zip(self.specs, self.gen_rows, self.gen_cols, self.rows, self.cols, strict=True)


def _row_col(cell: str) -> tuple[int, int]:
    """(row, column) of an A1 address; `D4`, as the names and the layout spell nearly every one, read by one
    match and a table of columns (~100,000 addresses in a big book), any other spelling by openpyxl."""
    plain = _PLAIN_A1(cell)
    if plain is not None:
        letters, row = plain.groups()
        column = _COLUMNS.get(letters)
        if column is None:
            column = _COLUMNS[letters] = column_index_from_string(letters)
        return int(row), column
    letter, number = coordinate_from_string(cell.replace("$", ""))
    return number, column_index_from_string(letter)


_PLAIN_A1 = re.compile(r"([A-Z]{1,3})([1-9][0-9]*)").fullmatch  # what `coordinate_from_string` reads the same
_COLUMNS: dict[str, int] = {}  # letters -> column number, learned as met (at most 18,278)


def _grid(sheet: str, placed: _Placed, flagged: set[str]) -> list[Finding]:
    """Names written in one row stay in one row, rows stay in order; the same for columns.

    Inserting or deleting rows or columns shifts whole rows and columns and keeps their order;
    a name moved on its own (or two names swapped) does not.
    """
    rows = _majority(zip(placed.gen_rows, placed.rows, strict=True))
    cols = _majority(zip(placed.gen_cols, placed.cols, strict=True))
    findings = []
    for spec, gen_row, gen_col, row, col in placed:
        want = (rows[gen_row], cols[gen_col])
        if (row, col) != want and spec.name not in flagged:
            here, there = f"{get_column_letter(col)}{row}", f"{get_column_letter(want[1])}{want[0]}"
            findings.append(_structure(f"name `{spec.name}` now points at {sheet}!{here}; the cells written "
                                       f"beside it put it at {there}", sheet, here, spec.name))
            flagged.add(spec.name)
    findings += _order(sheet, rows, "row", str)
    findings += _order(sheet, cols, "column", get_column_letter)
    return findings


def _majority(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    """Generated row (or column) -> where most of its names are now (ties: the lowest)."""
    seen: dict[int, Counter] = {}
    for generated, current in pairs:
        counts = seen.get(generated)
        if counts is None:  # not `setdefault(generated, Counter())`: a Counter made for every name
            counts = seen[generated] = Counter()
        counts[current] += 1
    return {g: min(counts, key=lambda c: (-counts[c], c)) for g, counts in seen.items()}


def _order(sheet: str, mapping: dict[int, int], what: str, show: Callable[[int], str]) -> list[Finding]:
    generated = sorted(mapping)
    for before, after in zip(generated, generated[1:], strict=False):
        if mapping[before] >= mapping[after]:
            return [_structure(f"{what}s of {sheet} are out of order: budgetbook's {what} {show(before)} is now "
                               f"{show(mapping[before])}, at or after its {what} {show(after)} (now "
                               f"{show(mapping[after])})", sheet)]
    return []


class _Labels:
    """The label budgetbook wrote in each named cell's row, held against the row the name points at now.

    Each sheet is read once, into its rows' texts (a big book has thousands of names in a few hundred rows).
    """

    def __init__(self, book: OpenedWorkbook):
        self.book = book
        self.sheets = {sheet.title: sheet for sheet in book.blueprint.sheets}
        self._written: dict[str, dict[int, list[tuple[int, str]]]] = {}
        self._now: dict[str, dict[int, list[tuple[int, str]]]] = {}
        self._now_sets: dict[str, dict[int, set[str]]] = {}
        self._labels: dict[str, set[str]] = {}
        self._kept: dict[str, bool] = {}  # sheet -> every label written still in its row (`kept`)
        self._sheet = ""  # the sheet being read (`keep_only`)

    def keep_only(self, sheet: str) -> None:
        """Drop what was read of the other sheets (the layout goes a sheet at a time: the largest plan's Cash
        flow labels, read twice, were ~25 MB of check's peak)."""
        if sheet != self._sheet:
            self._sheet = sheet
            for cache in (self._written, self._now, self._now_sets, self._labels):
                for title in [title for title in cache if title != sheet]:
                    del cache[title]

    def kept(self, sheet: str) -> bool:
        """Whether every label budgetbook wrote on `sheet` is still in its row (then a name still in the cell it was
        written in is beside its label: `problem` finds nothing, one test a row instead of one a name)."""
        found = self._kept.get(sheet)
        if found is None:
            now = self._now_sets_of(sheet)
            found = self._kept[sheet] = all(text in now.get(row, ()) for row, texts in self._written_of(sheet).items()
                                            for _, text in texts)
        return found

    def _written_of(self, sheet: str) -> dict[int, list[tuple[int, str]]]:
        if sheet not in self._written:
            self._written[sheet] = _by_row((r, c, value_of(cell.value)) for (r, c), cell
                                           in self.sheets[sheet].cells.items() if cell.style in LABEL_STYLES)
            self._labels[sheet] = {text for texts in self._written[sheet].values() for _, text in texts}
        return self._written[sheet]

    def expected(self, sheet: str, row: int, col: int) -> str:
        """The rightmost label left of the cell in budgetbook's row (an input's or a calculation's name)."""
        texts = self._written_of(sheet).get(row)
        if not texts:
            return ""
        if texts[-1][0] < col:  # the label column, left of every named cell of the row: nearly always
            return texts[-1][1]
        return next((text for c, text in reversed(texts) if c < col), "")

    def now(self, sheet: str, row: int) -> list[tuple[int, str]]:
        """(column, text) of the row as it is now, left to right."""
        self._now_sets_of(sheet)
        return self._now[sheet].get(row, [])

    def _now_sets_of(self, sheet: str) -> dict[int, set[str]]:
        """Row -> the texts in it now (`now`'s, as a set, each in both spellings), the sheet read once."""
        if sheet not in self._now:
            self._now[sheet] = _by_row(held_texts(self.book.wb[sheet]))
            # openpyxl leaves inline text `_xHHHH_`-escaped as stored (shared strings half decoded): either spelling
            self._now_sets[sheet] = {r: {t for _, text in texts for t in (text, _fold(unescape(text)))}
                                     for r, texts in self._now[sheet].items()}
        return self._now_sets[sheet]

    def problem(self, spec, sheet: str, gen_row: int, gen_col: int, row: int, col: int) -> str | None:
        label = self.expected(sheet, gen_row, gen_col)
        if not label:
            return None
        if label in self._now_sets_of(sheet).get(row, ()):  # anywhere in the row: a column inserted moves no label
            return None
        texts = [text for c, text in self.now(sheet, row) if c < col]
        others = [t for t in texts if t in self._labels[sheet]]
        shown = f"`{_short(others[-1])}`" if others else (f"`{_short(texts[-1])}`" if texts else "nothing")
        return (f"name `{spec.name}` now points at the row labelled {shown}; budgetbook wrote it in the row "
                f"labelled `{_short(label)}`")


def _by_row(cells: Iterable[tuple[int, int, Any]]) -> dict[int, list[tuple[int, str]]]:
    """Row -> (column, folded text) of its non-empty text cells, left to right."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for row, col, value in cells:
        if isinstance(value, str) and (text := _fold(value)):
            rows.setdefault(row, []).append((col, text))
    for texts in rows.values():
        texts.sort()
    return rows


def _fold(text: str) -> str:
    """A label as compared: illegal characters as the writer replaced them, whitespace folded."""
    if text.isascii() and text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text  # nearly every label: nothing to replace or fold, told without the regex
    return " ".join(ILLEGAL_CHARACTERS_RE.sub("?", text).split())


# ---------------------------------------------------------------- formula cells and the stamp

def _unknown_formulas(book: OpenedWorkbook, ours: _Lazy) -> list[Finding]:
    """Formula cells where the layout has no named cell: a helper column, a total the user added.

    The user's own (info) while no formula of ours reads the cell; a `structure` error when one does.
    """
    expected = set(expected_sheets(book))
    allowed = {where for spec in book.layout if (where := book.locate(spec.name)) is not None}
    findings, own = [], []
    for ws in book.wb.worksheets:
        if ws.title not in expected:
            continue  # the sheet itself is the finding
        for row, col, value, kind in held_cells(ws):
            if kind == "f" and (ws.title, coordinate := f"{get_column_letter(col)}{row}") not in allowed:
                text = _short(str(getattr(value, "text", value)))
                if ours.read.reads_cell(ws.title, coordinate):
                    findings.append(_structure(f"formula cell `{text}` is not one budgetbook writes for this "
                                               "plan, and budgetbook's formulas read it", ws.title, coordinate))
                else:
                    own.append(added_cell(ws.title, coordinate, text))
    return _capped(findings, "formula cells budgetbook does not write") + _capped(own, "cells of the user's own")


def _constants(book: OpenedWorkbook) -> list[Finding]:
    """The named constants (`k_tolerance`, an input's allowed `_min`/`_max`) hold what budgetbook wrote.

    No figure reads most of them, so the figure comparison cannot see an edit: `k_tolerance` set to
    1 would quietly turn every in-workbook check green.
    """
    findings = []
    for spec in book.layout:
        if spec.kind != "constant":
            continue
        where = book.locate(spec.name)
        if where is None:  # deleted: the formulas that read it now read #REF!, or nothing when none does
            findings.append(Finding("missing", f"constant `{spec.name}` is gone: its defined name or sheet "
                                    f"({spec.sheet}) was deleted", spec.sheet, None, spec.name))
            continue
        want = value_of(book.blueprint.get(spec.sheet).cells[_row_col(spec.cell)].value)
        have = book.value_at(*where)
        if not _same_number(want, have):
            findings.append(_structure(f"constant `{spec.name}` is now {_short(str(have))}; budgetbook wrote {want!r}",
                                       where[0], where[1], spec.name))
    return _capped(findings, "constants changed")


def _same_number(want: Any, have: Any) -> bool:
    if isinstance(have, bool) or not isinstance(have, (int, float)) or not isinstance(want, (int, float)):
        return False
    return math.isclose(float(want), float(have), rel_tol=1e-12, abs_tol=0.0)


def _baseline(book: OpenedWorkbook) -> list[Finding]:
    """A reforecast book's frozen baseline (in the embedded actuals) still matches the digest it was frozen with."""
    baseline = getattr(book.actuals, "baseline", None)
    if baseline is None or baseline.digest == baseline.expected_digest():
        return []
    return [_structure(f"the frozen baseline on hidden sheet `{ACTUALS_SHEET}` does not match its digest "
                       f"{baseline.digest[:19]}...: it was edited after it was frozen {baseline.frozen}",
                       ACTUALS_SHEET)]


def _stamp(book: OpenedWorkbook) -> list[Finding]:
    stamp = read_stamp(book.wb, EMBED_SHEET)
    if stamp is None:
        return [_structure(f"sheet `{EMBED_SHEET}` holds no digest of the embedded plan (a workbook from before "
                           "budgetbook wrote one, or it was cleared), so an edit of the plan there cannot be told",
                           EMBED_SHEET, severity=WARNING)]
    if stamp.digest != stamp.expected_digest(book.plan_text):
        return [_structure(f"the embedded plan on hidden sheet `{EMBED_SHEET}` does not match the digest "
                           "written with it: it was edited after `generate`", EMBED_SHEET,
                           f"{'ABCDE'[VALUE_COL - 1]}1")]
    return []
