"""A calculation sheet written the way it reads: label, unit, one formula per market column.

A row's formula is a template with named placeholders, resolved in each
market's column:

    sheet.row("Allocated GPU-hours (all runs)", "GPU-hours", st.HOURS,
              "={per_run}*{runs}", "cmp_pretrain_alloc", per_run=per_run_row, runs=runs_row)

A placeholder is one of:
- a row number on this sheet (`int`): that row's cell in the same column;
- several rows (`Rows`): their cells in the same column, SUM's arguments (`sum_arguments`);
- a defined name or other text (`str`): the same in every column (an input's name);
- `CellOf(prefix)`: the address of the cell named `<prefix>_<market>` (on any sheet);
- `NameOf(prefix)`: the figure `<prefix>_<market>`: the address of its cell, which sits in the
  same column (every calculation sheet has the markets in the same columns), else its name;
- a function of the column's market (`Callable[[Market], str]`): a name that depends on it
  (the price of the market a hybrid assigns the workload to).

The row's defined names are `<name>_<market id>`, one per column.

One formula per row (FAST): a row's cells are one R1C1 formula across the markets. A placeholder
that reads a differently named input in each column (each market's own price) becomes one
`CHOOSE` by the column's market number, a counter row of constants atop the sheet (1, 2, ...):

    =C9*CHOOSE(C$3,mkt_aws_price_h100_used,mkt_lambda_price_h100_used,mkt_aws_price_h100_used)

so every column holds the same formula and still names every input it may read, which keeps
`check`'s audit by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

from ..plan.model import Market, Plan
from ..xlsx.r1c1 import r1c1
from .grid import Blueprint
from .market_labels import write_header  # a label citing its price: the header links to the live label

FIRST_COL = 3   # A: label, B: unit, C..: one column per market
HEADER_ROW = 4
COUNTER_ROW = 3  # each column's market number, where a row picks its market's input with CHOOSE
COUNTER_LABEL = "Market number (a row's CHOOSE picks the column's market by it)"
# Excel's limit on a function's arguments ("Excel specifications and limits", Microsoft, read 2026-12-02);
# LibreOffice 7.4 holds to it too: a SUM of 256 cells is #N/A there (tests/workbook/test_argument_limit.py)
MAX_ARGUMENTS = 255


def sum_arguments(cells: Sequence[str]) -> str:
    """`cells` as the arguments of one `SUM(...)`: comma-separated, in SUMs of `MAX_ARGUMENTS` each
    where there are more (a 500-workload Compute total: `SUM(SUM(C12,...),SUM(...))`)."""
    parts = list(cells)
    while len(parts) > MAX_ARGUMENTS:
        parts = [f"SUM({','.join(parts[i:i + MAX_ARGUMENTS])})" for i in range(0, len(parts), MAX_ARGUMENTS)]
    return ",".join(parts)


@dataclass(frozen=True)
class Rows:
    """Several rows of this sheet, read in one column: `SUM({parts})` (and only in a SUM: past
    `MAX_ARGUMENTS` rows they come as SUMs of SUMs)."""

    rows: tuple[int, ...]


@dataclass(frozen=True)
class CellOf:
    """The address of the cell named `<prefix>_<market id>` of the column's market, wherever it is."""

    prefix: str


@dataclass(frozen=True)
class NameOf:
    """The figure `<prefix>_<market id>` of the column's market: its cell where it is in the same column."""

    prefix: str


Ref = Union[int, Rows, str, CellOf, NameOf, Callable[[Market], str]]


def market_col(plan: Plan, market: Market) -> int:
    return FIRST_COL + [m.id for m in plan.markets].index(market.id)


def market_header(market: Market) -> str:
    """A market column's header: its label, as its kind shows it (a hybrid says it is one)."""
    return market.market_kind.header(market)


def sum_or_none(rows: list[int]) -> str:
    """The template of the sum of some rows (placeholder `parts`); a line with no entries is the named zero."""
    return "=SUM({parts})" if rows else "=k_none"


class CalcSheet:
    """One sheet of label/unit/per-market rows, appended top to bottom."""

    def __init__(self, book: Blueprint, plan: Plan, title: str, role: str, heading: str, explain: str):
        self.book, self.plan = book, plan
        self.sheet = sheet = book.sheet(title, role)
        sheet.put(1, 1, heading, "title")
        sheet.put(2, 1, explain, "subtitle")
        sheet.put(HEADER_ROW, 1, "", "header")
        sheet.put(HEADER_ROW, 2, "Unit", "header")
        for market in plan.markets:
            write_header(book, sheet, HEADER_ROW, market_col(plan, market), market, market_header(market))
        sheet.widths = {1: 46.0, 2: 16.0} | {FIRST_COL + i: 20.0 for i in range(len(plan.markets))}
        sheet.freeze = f"C{HEADER_ROW + 1}"
        sheet.print_title_rows = f"{HEADER_ROW}:{HEADER_ROW}"  # market headers atop every printed page
        sheet.heights[HEADER_ROW] = 45  # market labels wrap onto up to three lines
        sheet.row = HEADER_ROW + 2

    @classmethod
    def resume(cls, book: Blueprint, plan: Plan, title: str) -> CalcSheet:
        """A sheet another line item started: rows go on below its last one."""
        self = cls.__new__(cls)
        self.book, self.plan, self.sheet = book, plan, book.get(title)
        return self

    def section(self, title: str) -> None:
        self.sheet.put(self.sheet.row, 1, title, "section", text=True)
        self.sheet.row += 1

    def note(self, text: str) -> None:
        self.sheet.put(self.sheet.row, 1, text, "note", text=True)
        self.sheet.row += 1

    def gap(self) -> None:
        self.sheet.row += 1

    def text_row(self, label: str, value: Callable[[Market], str | Market], name: str = "") -> None:
        """A row of text per market; a value that is a market reads its label (a link to the label where
        it is live, `<name>_<column's market>`)."""
        sheet = self.sheet
        sheet.put(sheet.row, 1, label, "unit")
        for market in self.plan.markets:
            col, shown = market_col(self.plan, market), value(market)
            if isinstance(shown, str):
                sheet.put(sheet.row, col, shown, "unit", text=True)
            else:
                write_header(self.book, sheet, sheet.row, col, shown, market_header(shown), "unit",
                             f"{name}_{market.id}", market)
        sheet.row += 1

    def row(self, label: str, unit: str, fmt: str, template: str, name: str, *, kind: str = "calc",
            item: str = "", style: str = "calc", **refs: Ref) -> int:
        """One row, the template resolved in each market's column; returns the row number."""
        sheet, row = self.sheet, self.sheet.row
        sheet.put(row, 1, label, "figure" if kind == "figure" else "label", text=True)
        sheet.put(row, 2, unit, "unit", text=True)
        markets, cols = self.plan.markets, self._cols()
        texts = {key: [self._resolve(ref, m, col) for m, col in zip(markets, cols, strict=True)]
                 for key, ref in refs.items()}
        for key, column_texts in texts.items():
            # a row of this sheet, rows, a cell by prefix: the same column by construction; a name: the same
            # text; only a function of the market, or a figure by name, can read another input per column
            if isinstance(refs[key], (int, Rows, CellOf, str)) or len(set(column_texts)) == 1:
                continue
            if not _one_shape(column_texts, row, cols):
                texts[key] = [self._choose(column_texts, row, col) for col in cols]
        shown_style = "total" if kind == "figure" else style
        for i, (market, col) in enumerate(zip(markets, cols, strict=True)):
            formula = template.format_map({key: column_texts[i] for key, column_texts in texts.items()})
            self.book.formula(sheet, row, col, formula, f"{name}_{market.id}", kind=kind,
                              fmt=fmt, style=shown_style, item=item, market=market.id)
        sheet.row += 1
        return row

    def _cols(self) -> list[int]:
        """Each market's column, in the plan's order (`market_col`, worked out once per sheet)."""
        cols = self.__dict__.get("_market_cols")
        if cols is None:
            cols = self.__dict__["_market_cols"] = [market_col(self.plan, m) for m in self.plan.markets]
        return cols

    def _choose(self, column_texts: list[str], row: int, col: int) -> str:
        """One text for every column: the column's own, picked by its market number."""
        for text in column_texts:
            if _top_level_comma(text):
                raise ValueError(f"a list cannot be one of CHOOSE's choices: {text!r}")
        return f"CHOOSE({self.sheet.ref(self._counter(), col, self.sheet.title)},{','.join(column_texts)})"

    def counter(self) -> int:
        """The market-number row (written once, when a row first needs it): a formula may pick by it."""
        return self._counter()

    def _counter(self) -> int:
        """The market-number row (written once, when a row first needs it)."""
        sheet = self.sheet
        if (COUNTER_ROW, 1) not in sheet.cells:
            sheet.put(COUNTER_ROW, 1, COUNTER_LABEL, "mechanism", text=True)
            for number, market in enumerate(self.plan.markets, 1):
                col = market_col(self.plan, market)
                sheet.put(COUNTER_ROW, col, number, "mechanism", "0")
                self.book.name(self.book.per_sheet_name("mno", sheet, market.id), sheet, COUNTER_ROW, col, "constant",
                               market=market.id)
        return COUNTER_ROW

    def _resolve(self, ref: Ref, market: Market, col: int) -> str:
        sheet = self.sheet
        if isinstance(ref, bool):
            raise TypeError("a placeholder is a row, Rows, text, CellOf, NameOf or a function of the market")
        if isinstance(ref, int):
            return sheet.ref(ref, col, sheet.title)
        if isinstance(ref, Rows):
            return sum_arguments([sheet.ref(r, col, sheet.title) for r in ref.rows])
        if isinstance(ref, str):
            return ref
        if isinstance(ref, CellOf):
            return self.book.ref(f"{ref.prefix}_{market.id}", sheet)
        if isinstance(ref, NameOf):
            name = f"{ref.prefix}_{market.id}"
            where = self.book.where.get(name)
            return self.book.ref(name, sheet) if where is not None and where[2] == col else name
        return ref(market)


# A placeholder's text of plain operands joined by `,` or `+` (`mkt_m0_price_h100_used`, `C15,C52,C89`,
# `'Compute'!C933`, `a_days+b_days`): an operand is a name or an address, perhaps on a quoted sheet; no
# string, range, `$`, space, number or other operator. openpyxl's tokenizer finds each an operand (a quoted
# sheet is part of it), and `xlsx.r1c1` turns those whose address matches its `_CELL` into R1C1 and keeps
# the rest, the text between as it is. Such texts are put in R1C1 here, without loading openpyxl.
_OPERAND = r"(?:'[^',!]+'!)?[A-Za-z_][A-Za-z0-9_.]*"
_PLAIN = re.compile(f"{_OPERAND}(?:[,+]{_OPERAND})*")
_PLAIN_OPERAND = re.compile(r"((?:'[^',!]+'!)?)([A-Za-z]{1,3})([0-9]+)(?![A-Za-z0-9_.])|" + _OPERAND)


def _plain_r1c1(text: str, row: int, col: int) -> str:
    """`=F(text)`'s R1C1 text, as `xlsx.r1c1.r1c1` gives it, for a `_PLAIN` text."""

    def one(match: re.Match[str]) -> str:
        sheet, letters, number = match.groups()
        if letters is None:
            return match.group(0)  # a name: the same in every column
        r, c = int(number), 0
        for letter in letters.upper():
            c = c * 26 + ord(letter) - 64
        return sheet + (f"R[{r - row}]" if r != row else "R") + (f"C[{c - col}]" if c != col else "C")

    return f"=F({_PLAIN_OPERAND.sub(one, text)})"


def _one_shape(column_texts: list[str], row: int, cols: list[int]) -> bool:
    """The same R1C1 text in every column (each column's text read where it is written)."""
    if all(_PLAIN.fullmatch(text) for text in column_texts):
        return len({_plain_r1c1(text, row, col) for text, col in zip(column_texts, cols, strict=True)}) <= 1
    return len({r1c1(f"=F({text})", row, col) for text, col in zip(column_texts, cols, strict=True)}) <= 1


def _top_level_comma(text: str) -> bool:
    if "," not in text:  # the tokenizer makes an argument separator of a comma only (a CHOOSE of 20 markets
        return False     # asks ~160,000 times; none of the portfolio's texts holds one)
    from openpyxl.formula.tokenizer import Token, Tokenizer  # only for a comma: openpyxl costs ~0.3 s to load

    depth = 0
    for token in Tokenizer(f"=F({text})").items[1:-1]:
        if token.type in (Token.FUNC, Token.PAREN):
            depth += 1 if token.subtype == Token.OPEN else -1
        elif token.type == Token.SEP and token.subtype == Token.ARG and depth == 0:
            return True
    return False
