"""Rows of a calculation sheet: one label, one unit, one formula per market column."""

from __future__ import annotations

from typing import Callable

from ..plan.model import Market, Plan
from .grid import Book, Sheet

FIRST_COL = 3   # A: label, B: unit, C..: one column per market
HEADER_ROW = 4


def market_col(plan: Plan, market: Market) -> int:
    return FIRST_COL + [m.id for m in plan.markets].index(market.id)


def start_calc_sheet(book: Book, plan: Plan, title: str, role: str, heading: str, explain: str) -> Sheet:
    sheet = book.sheet(title, role)
    sheet.put(1, 1, heading, "title")
    sheet.put(2, 1, explain, "subtitle")
    sheet.put(HEADER_ROW, 1, "", "header")
    sheet.put(HEADER_ROW, 2, "Unit", "header")
    for market in plan.markets:
        label = market.label or market.id
        if market.hybrid is not None and "hybrid" not in label.lower():
            label += " (hybrid)"
        sheet.put(HEADER_ROW, market_col(plan, market), label, "header", text=True)
    sheet.widths = {1: 46, 2: 16} | {FIRST_COL + i: 20 for i in range(len(plan.markets))}
    sheet.freeze = f"C{HEADER_ROW + 1}"
    sheet.heights[HEADER_ROW] = 45  # market labels wrap onto up to three lines
    sheet.row = HEADER_ROW + 2
    return sheet


def section(sheet: Sheet, title: str) -> None:
    sheet.put(sheet.row, 1, title, "section", text=True)
    sheet.row += 1


def text_row(sheet: Sheet, plan: Plan, label: str, value: Callable[[Market], str]) -> None:
    sheet.put(sheet.row, 1, label, "unit")
    for market in plan.markets:
        sheet.put(sheet.row, market_col(plan, market), value(market), "unit", text=True)
    sheet.row += 1


def formula_row(book: Book, sheet: Sheet, plan: Plan, label: str, unit: str, fmt: str,
                formula: Callable[[Market, int], str], name: Callable[[Market], str], *,
                kind: str = "calc", item: str = "", style: str = "calc") -> int:
    """One row, one formula per market; returns the row number."""
    row = sheet.row
    sheet.put(row, 1, label, "figure" if kind == "figure" else "label", text=True)
    sheet.put(row, 2, unit, "unit", text=True)
    for market in plan.markets:
        col = market_col(plan, market)
        book.formula(sheet, row, col, formula(market, col), name(market), kind=kind, fmt=fmt,
                     style="total" if kind == "figure" else style, item=item, market=market.id)
    sheet.row += 1
    return row


def at(sheet: Sheet, row: int, col: int) -> str:
    """A same-sheet reference: the row's cell in this market's column."""
    return sheet.ref(row, col, sheet.title)


def plus(refs: list[str]) -> str:
    return "+".join(refs)


def sum_of(refs: list[str]) -> str:
    """SUM of separate cells: each reference points at one named cell, never a range of blanks."""
    return f"SUM({','.join(refs)})"
