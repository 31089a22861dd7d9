"""The workbook as plain data first: sheets of cells, each formula cell with its defined name.

Every sheet builder writes into a `Sheet`; `Blueprint` collects them, hands out
defined names (workbook scope, unique, never look like a cell reference) and
records one `CellSpec` per named cell. `openpyxl_book.py` turns the result into an
openpyxl workbook; `check` compares an edited workbook against the specs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import PlanError
from ..xlsx.cell_grid import col_letters, packed_cell, unpacked_cell

KINDS = ("input", "constant", "calc", "figure", "check")
LABEL_CAP = 100.0  # column A's widest, in characters: past it a label is cut, as it ever was
BOLD = 1.1         # a bold label's characters are this much wider (Calibri 11)
# A name Excel or LibreOffice would read as a cell (A1, XFD1048576) or an R1C1 reference
_CELL_LIKE = re.compile(r"^([A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc]?[0-9]*|[Cc][0-9]*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")
# Excel and LibreOffice read `_x0041_` in a stored name as `A` (OOXML ST_Xstring), while formulas
# keep calling it `..._x0041_...`: a name holding one breaks every formula that uses it
_ESCAPE_LIKE = re.compile(r"_x[0-9A-Fa-f]{4}_")
# all three at once, for the ~50,000 names of a big plan: a name this matches passes them, one that does not
# is sent through them one by one to say which it fails
_GOOD_NAME = re.compile(r"(?!(?:[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc]?[0-9]*|[Cc][0-9]*)$)(?!.*_x[0-9A-Fa-f]{4}_)"
                        r"[A-Za-z_][A-Za-z0-9_]{0,254}$")


class BadName(PlanError):
    """A defined name the plan's ids make that a workbook cannot hold; `name` is the name.

    The plan loader lays every plan out (`planfile.loader.refuse_unwritable`) and names
    the id in the message, so `show` refuses what `generate` cannot write.
    """

    def __init__(self, name: str, problem: str, *, source: str | None = None):
        super().__init__(problem, source=source)
        self.name = name


# The cells a workbook may name (formulas, inputs, constants): what `generate` and `check` hold in memory grows
# with them, ~1.4 KB a cell; the caps on ids alone (20 markets, 500 workloads) let a plan lay out ~700,000 (500 x 20).
# At this many the heaviest plans measured stay under 400 MB (docs/scale.md: 470 workloads x 8 markets, 269,732
# cells, `generate` 371 MiB); 200 workloads x 20 markets (268,748) and 500 x 6 (225,314) fit.
MAX_CELLS_LAID_OUT = 270_000


class TooLarge(PlanError):
    """A plan whose workbook would name more than `MAX_CELLS_LAID_OUT` cells: refused while it is laid out, so the
    layout never holds more."""


@dataclass(frozen=True, slots=True)  # ~400,000 in the largest plan's layout: 104 bytes each, not 160 + a dict
class CellSpec:
    """One named cell as generated: `check` finds it by `name` and compares `formula`."""

    name: str
    sheet: str
    cell: str              # A1 address as generated
    formula: str | None    # exact text written ("=..."), None for inputs and constants
    kind: str              # one of KINDS
    item: str = ""         # line item id for figures (and the calcs that feed them)
    market: str = ""
    # a calculation written without a defined name (`anchors`): found in the row of the named cell
    # `row_anchor` and the column of the named cell `col_anchor`; both "" for a cell with its own name
    row_anchor: str = ""
    col_anchor: str = ""

    @property
    def named(self) -> bool:
        """Whether the workbook holds a defined name for this cell (else its anchors find it)."""
        return not self.row_anchor


@dataclass(frozen=True)
class LinkedText:
    """Text a chart reads from a cell (a series title that follows a live market label); `text` is it now."""

    ref: str    # absolute, sheet-qualified: 'Inputs'!$C$5
    text: str


@dataclass(slots=True)  # ~400,000 of them in the largest plan's blueprint: no dict each
class Cell:
    value: Any
    style: str = "text"          # one of style.STYLE_NAMES
    number_format: Any = None    # a format code, or one worked out when read (`workbook.computed.Computed`)
    name: str | None = None
    is_text: bool = False        # plan text: always a string, even when it starts with "="


@dataclass
class Sheet:
    title: str
    role: str                                  # inputs | calc | output | about | hidden
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    widths: dict[int, float] = field(default_factory=dict)
    heights: dict[int, float] = field(default_factory=dict)
    freeze: str | None = None
    validations: list[tuple[str, dict]] = field(default_factory=list)   # (A1, rule)
    red_when_false: list[str] = field(default_factory=list)              # A1 of check cells
    lowest_in_row: list[str] = field(default_factory=list)               # A1 ranges: highlight the minimum
    chart: dict | None = None
    gridlines: bool = True
    row: int = 1                               # next free row, for builders that append
    print_columns: int | None = None           # print only columns 1..n (technical columns left off paper)
    print_title_rows: str | None = None        # rows repeated atop every printed page ("4:4")
    more_charts: list[dict] = field(default_factory=list)  # charts beside `chart` (`openpyxl_book`)
    runs_on: bool = False                      # an output printed over as many pages as it needs, not one
    page_breaks: list[int] = field(default_factory=list)  # printed pages end after these rows (a chart's own page)

    def fit_labels(self) -> None:
        """Widen column A to its longest row label (up to `LABEL_CAP` characters): a label the unit in
        column B would otherwise cut off is read whole, on screen and on paper."""
        longest = max((len(str(cell.value)) * (BOLD if cell.style == "figure" else 1.0) for (_, col), cell
                       in self.cells.items() if col == 1 and cell.style in ("label", "figure")), default=0.0)
        if longest:
            self.widths[1] = max(self.widths.get(1, 8.43), min(LABEL_CAP, longest + 2))

    def put(self, row: int, col: int, value: Any, style: str = "text", fmt: Any = None,
            *, text: bool = False) -> str:
        self.cells[(row, col)] = Cell(value, style, fmt, is_text=text or isinstance(value, str))
        return a1(row, col)

    def ref(self, row: int, col: int, from_sheet: str) -> str:
        return a1(row, col) if from_sheet == self.title else f"{quoted(self.title)}!{a1(row, col)}"


def a1(row: int, col: int) -> str:
    return f"{col_letters(col)}{row}"


@functools.lru_cache(maxsize=1024)  # a book has a few titles, quoted ~360,000 times on the largest plan
def quoted(title: str) -> str:
    """A sheet title as formulas spell it, always quoted (as openpyxl's quote_sheetname, without importing it)."""
    return "'" + title.replace("'", "''") + "'"


class Places(Mapping):
    """{name: (sheet, row, column)} of a blueprint's named cells, each held as one int (the sheet's tab index,
    row and column packed): a tuple each was ~24 MB of the largest plan's layout at its peak (issue 27)."""

    __slots__ = ("_sheets", "_at")

    def __init__(self, sheets: list[Sheet]):
        self._sheets = sheets
        self._at: dict[str, int] = {}

    def put(self, name: str, tab: int, row: int, col: int) -> None:
        self._at[name] = packed_cell(tab, row, col)

    def __getitem__(self, name: str) -> tuple[Sheet, int, int]:
        tab, row, col = unpacked_cell(self._at[name])
        return self._sheets[tab], row, col

    def packed(self, name: str) -> int:
        """The name's place as the one int held: ordered by sheet, then row, then column."""
        return self._at[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


class Blueprint:
    """The workbook as designed, before openpyxl: sheets in tab order, plus the registry of defined names."""

    def __init__(self, plan_name: str, *, lean: bool = False):
        """`lean`: laid out to be read, never written (`check`, `show`): a formula cell is its spec alone, no `Cell`
        in its sheet (on the largest plan ~45 MB less at the peak of laying it out)."""
        self.plan_name = plan_name
        self.lean = lean
        self.sheets: list[Sheet] = []
        self.specs: dict[str, CellSpec] = {}
        self._folded: dict[str, str] = {}  # folded -> name, of a name not in lower case (the specs hold the others)
        self.where = Places(self.sheets)
        self._tabs: dict[str, int] = {}  # sheet title -> its index
        self.dated: Any = None    # the date About gives, and the version (`workbook.build.build_book`)
        self.version = ""
        self.shed = False         # taken: no name handed out, nor the layout read (`shed_layout`, `shed_formulas`)

    def sheet(self, title: str, role: str) -> Sheet:
        sheet = Sheet(title, role)
        self._tabs[title] = len(self.sheets)
        self.sheets.append(sheet)
        return sheet

    def get(self, title: str) -> Sheet:
        """A sheet already written (a line item may add rows to another item's sheet)."""
        return next(sheet for sheet in self.sheets if sheet.title == title)

    def name(self, name: str, sheet: Sheet, row: int, col: int, kind: str, formula: str | None = None,
             item: str = "", market: str = "") -> str:
        """Register `name` for a cell; refuses a name Excel would misread or that is taken.

        The refusal names no file: only the caller knows which plan file (or workbook) the ids came from.
        """
        self._register(name, sheet, row, col, a1(row, col), kind, formula, item, market)
        return name

    def _register(self, name: str, sheet: Sheet, row: int, col: int, address: str, kind: str,
                  formula: str | None, item: str, market: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown cell kind {kind!r}")
        if self.shed:
            raise RuntimeError("a name handed out after `shed_layout` or `shed_formulas`")
        if not _GOOD_NAME.match(name):
            if not _NAME.match(name) or _CELL_LIKE.match(name):
                raise BadName(name, f"the ids make the workbook name `{name}`, which Excel would not accept "
                              "as a defined name: use letters, digits and `_`")
            if escape := _ESCAPE_LIKE.search(name):
                raise BadName(name, f"the ids make the workbook name `{name}`, whose `{escape.group()}` Excel and "
                              "LibreOffice read as an escaped character, breaking the formulas that use it: "
                              "rename the id")
            raise AssertionError(f"{name!r}: the one pattern and the three disagree")  # never: they are one rule
        if len(self.specs) >= MAX_CELLS_LAID_OUT:
            raise TooLarge(f"its workbook would lay out over {MAX_CELLS_LAID_OUT:,} cells (formulas and inputs): "
                           "more than `generate` and `check` handle within bounded time and memory: split the "
                           "plan (fewer workloads or markets in each)")
        if self.is_taken(name):
            raise BadName(name, f"two cells of the workbook would both be named `{name}` (ids that run into "
                          "each other, such as `a_b` + `c` and `a` + `b_c`): rename one id")
        if (folded := name.lower()) != name:  # budgetbook's names are lower case: no second map of them
            self._folded[folded] = name
        self.specs[name] = CellSpec(name, sheet.title, address, formula, kind, item, market)
        self.where.put(name, self._tabs[sheet.title], row, col)
        if not self.lean:
            sheet.cells[(row, col)].name = name
        elif (cell := sheet.cells.get((row, col))) is not None:
            cell.name = name

    def formula(self, sheet: Sheet, row: int, col: int, formula: str, name: str, *, kind: str = "calc",
                fmt: str | None = None, style: str = "calc", item: str = "", market: str = "") -> str:
        """Write a named formula cell; returns its A1 address on `sheet`."""
        if not formula.startswith("="):
            raise ValueError(f"not a formula: {formula!r}")
        if not self.lean:
            sheet.cells[(row, col)] = Cell(formula, style, fmt)
        address = f"{col_letters(col)}{row}"  # a1(row, col), once for the spec and the caller
        self._register(name, sheet, row, col, address, kind, formula, item, market)
        return address

    def per_sheet_name(self, prefix: str, sheet: Sheet, market_id: str) -> str:
        """`<prefix>_<sheet title as a name part>_<market>` for a cell every sheet has one of per market
        (`hdr_storage_egress_aws`); `<prefix>_s<tab number>_<market>` where the title has no letters or
        digits, or reads like another's once folded."""
        part = re.sub(r"[^a-z0-9]+", "_", sheet.title.lower()).strip("_")
        name = f"{prefix}_{part}_{market_id}"
        return name if part and not self.is_taken(name) else f"{prefix}_s{self.sheets.index(sheet) + 1}_{market_id}"

    def is_taken(self, name: str) -> bool:
        """Whether a cell already has `name` (compared case-folded, as Excel compares names)."""
        folded = name.lower()
        return folded in self.specs or folded in self._folded

    def absolute(self, name: str) -> str:
        """The named cell as a chart reads it: `'Inputs'!$C$5`."""
        sheet, row, col = self.where[name]
        return f"{quoted(sheet.title)}!${col_letters(col)}${row}"

    def ref(self, name: str, from_sheet: Sheet) -> str:
        """An A1 reference (same sheet) or 'Sheet'!A1 (another) to a named cell."""
        sheet, row, col = self.where[name]
        return sheet.ref(row, col, from_sheet.title)

    def layout(self) -> list[CellSpec]:
        if self.shed:
            raise RuntimeError("this blueprint's layout was taken, and shed")
        return list(self.specs.values())

    def shed_layout(self) -> None:
        """Keep only what writing the book reads: its sheets and the specs of the cells with a defined name.

        The specs of the cells found by their anchors, `where` and the folded names serve laying the plan
        out and `check`; on the largest plan they are ~90 MB of the ~200 the blueprint holds, dropped here
        before the book is rendered (`workbook.build.build_streamed`), which needs its memory. No name can
        be handed out after, nor the layout read.
        """
        self.specs = {name: spec for name, spec in self.specs.items() if spec.named}
        self.where, self._folded, self.shed = Places(self.sheets), {}, True

    def shed_formulas(self) -> None:
        """Keep what reading a book back needs, once its layout is taken (each formula's text is in its spec):
        the sheets' labels, inputs and constants. Their formula cells, the specs' map, `where` and the folded
        names go: on the largest plan ~100 MB of the layout `check` holds beside the book it evaluates (issue
        27). No name can be handed out after, nor the layout read again.
        """
        for sheet in self.sheets:
            sheet.cells = {at: cell for at, cell in sheet.cells.items()
                           if cell.is_text or not (isinstance(cell.value, str) and cell.value.startswith("="))}
        self.specs, self.where, self._folded, self.shed = {}, Places(self.sheets), {}, True
