"""Further line items (data, evaluation, hardware...): one sheet each, one cost per market."""

from __future__ import annotations

import re

from ..plan.model import Item, Plan
from ..workbook import style as st
from ..workbook.rows import formula_row, start_calc_sheet
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs

FIXED_TITLES = ("About", "Inputs", "Compute", "Failed runs", "Storage & egress", "People", "Serving",
                "Summary", "Procurement", "Checks", "_budgetbook")


def sheet_title(label: str, taken: set[str]) -> str:
    """A valid, unique sheet title: no []:*?/\\, no edge apostrophes, at most 31 characters."""
    base = re.sub(r"[\[\]:*?/\\\x00-\x1f]", "-", label).strip().strip("'").strip() or "Item"
    title, n = base[:31], 2
    while title.lower() in taken:
        suffix = f" ({n})"
        title, n = base[: 31 - len(suffix)].rstrip() + suffix, n + 1
    taken.add(title.lower())
    return title


def build_items(book: Book, plan: Plan, inp: Inputs) -> list[Sheet]:
    taken = {t.lower() for t in FIXED_TITLES}
    return [_item_sheet(book, plan, inp, i, item, sheet_title(item.label or item.id, taken))
            for i, item in enumerate(plan.items)]


def _item_sheet(book: Book, plan: Plan, inp: Inputs, i: int, item: Item, title: str) -> Sheet:
    sheet = start_calc_sheet(book, plan, title, "calc", item.label or item.id,
                             f"A cost the plan gives directly (item `{item.id}`); the same on every market.")
    if item.note:
        sheet.put(3, 1, item.note, "note", text=True)
    formula_row(book, sheet, plan, item.label or item.id, plan.currency, st.money(plan.currency),
                lambda m, c: "=" + inp[("items", i, "cost")], lambda m: f"{item.id}_{m.id}",
                kind="figure", item=item.id)
    return sheet
