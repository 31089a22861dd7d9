"""A calculation sheet written the way it reads: label, unit, one formula per market column.

A row's formula is a template with named placeholders, resolved in each
market's column:

    sheet.row("Allocated GPU-hours (all runs)", "GPU-hours", st.HOURS,
              "={per_run}*{runs}", "cmp_pretrain_alloc", per_run=per_run_row, runs=runs_row)

A placeholder is one of:
- a row number on this sheet (`int`): that row's cell in the same column;
- several rows (`Rows`): their cells in the same column, comma-separated (for `SUM(...)`);
- a defined name or other text (`str`): the same in every column (an input's name);
- `CellOf(prefix)`: the address of the cell named `<prefix>_<market>` (on any sheet);
- `NameOf(prefix)`: the defined name `<prefix>_<market>` itself (a figure, read by name);
- a function of the column's market (`Callable[[Market], str]`): a name that depends on it
  (the price of the market a hybrid assigns the workload to).

The row's defined names are `<name>_<market id>`, one per column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

from ..plan.model import Market, Plan
from .grid import Blueprint
from .market_labels import write_header  # a label citing its price: the header links to the live label

FIRST_COL = 3   # A: label, B: unit, C..: one column per market
HEADER_ROW = 4


@dataclass(frozen=True)
class Rows:
    """Several rows of this sheet, read in one column: `SUM({parts})`."""

    rows: tuple[int, ...]


@dataclass(frozen=True)
class CellOf:
    """The address of the cell named `<prefix>_<market id>` of the column's market, wherever it is."""

    prefix: str


@dataclass(frozen=True)
class NameOf:
    """The defined name `<prefix>_<market id>` of the column's market (outputs read figures by name)."""

    prefix: str


Ref = Union[int, Rows, str, CellOf, NameOf, Callable[[Market], str]]


def market_col(plan: Plan, market: Market) -> int:
    return FIRST_COL + [m.id for m in plan.markets].index(market.id)


def market_header(market: Market) -> str:
    label = market.label or market.id
    return label + " (hybrid)" if market.hybrid is not None and "hybrid" not in label.lower() else label


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
        for market in self.plan.markets:
            col = market_col(self.plan, market)
            formula = template.format_map({key: self._resolve(ref, market, col) for key, ref in refs.items()})
            self.book.formula(sheet, row, col, formula, f"{name}_{market.id}", kind=kind, fmt=fmt,
                              style="total" if kind == "figure" else style, item=item, market=market.id)
        sheet.row += 1
        return row

    def _resolve(self, ref: Ref, market: Market, col: int) -> str:
        sheet = self.sheet
        if isinstance(ref, bool):
            raise TypeError("a placeholder is a row, Rows, text, CellOf, NameOf or a function of the market")
        if isinstance(ref, int):
            return sheet.ref(ref, col, sheet.title)
        if isinstance(ref, Rows):
            return ",".join(sheet.ref(r, col, sheet.title) for r in ref.rows)
        if isinstance(ref, str):
            return ref
        if isinstance(ref, CellOf):
            return self.book.ref(f"{ref.prefix}_{market.id}", sheet)
        if isinstance(ref, NameOf):
            return f"{ref.prefix}_{market.id}"
        return ref(market)
