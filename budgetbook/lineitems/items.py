"""Further items: data, evaluation, hardware, licences... one sheet each, the same cost on every market.

Rule: a cost the plan gives directly (`cost`), or quantity x unit price
(`quantity` of `unit` at `unit_price`: 40 TB of data at $120 per TB). Over
time, an item is paid in the plan's first month.

An item's line (its figures `<line>_<market>`, `show`'s `item`) is its own id, unless a built-in
line item reports a line of that id, today's or one added later: then its line is `<id>_item`
(`<id>_item_item` if the plan has an item of that id too), with a warning. So a new built-in line
never breaks a plan, and an item's other names (`item_<id>_*` inputs, `itm_<id>_*` rows) never change.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Annotated, Any

from pydantic import Field, model_validator

from ..plan.inputs import InputCell, walk
from ..plan.model import ID_PATTERN, Money, Plan, Price, Strict, unique_ids
from ..plan.numbers import Num, num
from ..plan.rules import one_way
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet
from .base import Line, LineItem, Section, built_in_lines, reserved_titles, rule
from .phasing import FIRST_MONTH
from .scenario import MarketView


class Item(Strict):
    id: str = Field(pattern=ID_PATTERN)
    label: str = Field("", max_length=200)
    cost: Money | None = None
    quantity: Annotated[Num, num(0, 1e15, unit="units", description="how many `unit`s")] | None = None
    unit: str = Field("", max_length=40, description="what `quantity` counts (TB, evaluations, GPUs)")
    unit_price: Price | None = Field(None, description="price of one `unit`")
    note: str = Field("", max_length=2000)

    @model_validator(mode="after")
    def _cost_or_quantity(self):
        by_quantity = self.quantity is not None or self.unit_price is not None
        if (self.cost is not None) == by_quantity:
            raise ValueError("give `cost`, or `quantity` and `unit_price`")
        if by_quantity and (self.quantity is None or self.unit_price is None):
            raise ValueError("give both `quantity` and `unit_price`")
        return self

    SCHEMA_RULES = one_way(("cost",), ("quantity", "unit_price"))

    @property
    def title(self) -> str:
        return self.label or self.id.replace("_", " ").capitalize()


def _items(plan: Any) -> list[Any]:
    return SECTION.of(plan)


def input_cells(plan: Plan) -> list[InputCell]:
    cells: list[InputCell] = []
    for i, item in enumerate(_items(plan)):
        for cell in walk(item, ("items", i), (SECTION.input_prefix + item.id,), item.label or item.id):
            unit = {"quantity": item.unit or "units", "unit_price": f"money per {item.unit or 'unit'}"}
            if cell.path[-1] in unit:  # the plan says what is counted: show it, not "units"
                cell = dataclasses.replace(cell, bounds=dataclasses.replace(cell.bounds, unit=unit[cell.path[-1]]))
            cells.append(cell)
    return cells


def validate(plan: Plan) -> None:
    unique_ids("items", [item.id for item in _items(plan)])


LINE_SUFFIX = "_item"  # an item whose id a built-in line has: its line is `<id>_item`


def line_ids(plan: Any) -> dict[str, str]:
    """Item id -> its line id: the id itself, or `<id>_item` (`_item_item`...) where a built-in line has the id."""
    built_in = built_in_lines(plan.LINE_ITEMS)
    taken = set(built_in) | {item.id for item in _items(plan)}
    out: dict[str, str] = {}
    for item in _items(plan):
        line = item.id
        while line in built_in or (line != item.id and line in taken):
            line += LINE_SUFFIX
        taken.add(line)
        out[item.id] = line
    return out


def warnings(plan: Plan) -> list[tuple[str, str]]:
    """(key path, line) for each item whose id a built-in line has: its figures are renamed."""
    built_in, found = built_in_lines(plan.LINE_ITEMS), []
    for i, (item_id, line) in enumerate(line_ids(plan).items()):
        if line != item_id:
            key = f"items[{i}].id"
            found.append((key, f"`{key}`: `{item_id}` is also the id of a built-in line ({built_in[item_id]}), so "
                               f"this item's figures are named `{line}_<market>` (`show`'s item `{line}`): give the "
                               "item another id to choose its names"))
    return found


SECTION = Section("items", list[Item], Field(default_factory=list, max_length=50), "Other items", "item_", input_cells,
                  validate=validate, warnings=warnings)


def lines(plan: Plan) -> list[Line]:
    ids = line_ids(plan)
    return [Line(ids[item.id], item.title) for item in _items(plan)]


# --- the reference rule -------------------------------------------------------------------

def reference(view: MarketView) -> dict[str, float]:
    ids = line_ids(view.plan)
    return {ids[item.id]: item.cost if item.cost is not None else item.quantity * item.unit_price
            for item in view.plan.items}


def monthly(view: MarketView) -> dict[str, list[float]]:
    ids = line_ids(view.plan)
    return {ids[item.id]: view.spread(view.lines[ids[item.id]], FIRST_MONTH) for item in view.plan.items}


# --- the sheets ---------------------------------------------------------------------------

# Excel counts a sheet title's 31-character limit in UTF-16 code units: an emoji is two
TITLE_UNITS = 31


def _cut(text: str, units: int) -> str:
    """The longest start of `text` of at most `units` UTF-16 units (never half an emoji), no trailing
    space or apostrophe (Excel refuses a title ending in one)."""
    used = 0
    for end, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            text = text[:end]
            break
    return re.sub(r"[\s']+$", "", text)


def _shortened(text: str, units: int) -> str:
    """`text` if it fits, else its words that fit and an ellipsis (`Data collection, filtering…`),
    never a word cut in two unless the first word alone is too long."""
    cut = _cut(text, units)
    if cut == text:
        return text
    head = _cut(text, units - 1)
    whole = text[len(head):len(head) + 1].isspace() or " " not in head  # `head` ends on a word's end
    words = re.sub(r"[\s,;'-]+$", "", head if whole else head.rsplit(" ", 1)[0])
    return (words or head) + "\u2026"


def sheet_title(label: str, taken: set[str]) -> str:
    """A valid, unique sheet title: no []:*?/\\, control characters or `_xHHHH_` escapes, no edge
    apostrophes, at most 31 UTF-16 units."""
    base = re.sub(r"[\[\]:*?/\\\x00-\x1f\x7f-\x9f]", "-", label).strip().strip("'").strip() or "Item"
    # Excel and LibreOffice read `_x0041_` in a stored sheet name as `A` (OOXML ST_Xstring), while
    # formulas keep the name as written: break every such escape, as other characters a title may
    # not hold are broken
    base = re.sub(r"_(?=x[0-9A-Fa-f]{4}_)", "-", base)
    title, n = _shortened(base, TITLE_UNITS), 2
    while title.lower() in taken:
        suffix = f" ({n})"
        title, n = _shortened(base, TITLE_UNITS - len(suffix)) + suffix, n + 1
    taken.add(title.lower())
    return title


def sheet_titles(plan: Plan, taken: set[str]) -> list[str]:
    return [sheet_title(item.label or item.id, taken) for item in _items(plan)]


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    ids = line_ids(plan)
    titles = sheet_titles(plan, reserved_titles(plan.LINE_ITEMS))
    for i, (item, title) in enumerate(zip(_items(plan), titles, strict=True)):
        line = ids[item.id]
        how = "A cost the plan gives directly" if item.cost is not None else "Quantity x unit price"
        sheet = CalcSheet(book, plan, title, "calc", item.label or item.id,
                          f"{how} (item `{item.id}`); the same on every market.")
        if item.note:
            sheet.sheet.put(3, 1, item.note, "note", text=True)
        money = st.money(plan.currency)
        key = ("items", i)
        if item.cost is not None:
            sheet.row(item.label or item.id, plan.currency, money, "={cost}", line, kind="figure", item=line,
                      cost=inp[key + ("cost",)])
            continue
        quantity = sheet.row("Quantity", item.unit or "units", inp.count_format(key + ("quantity",)), "={quantity}",
                             f"itm_{item.id}_quantity",
                             quantity=inp[key + ("quantity",)])
        price = sheet.row(f"Price per {item.unit or 'unit'}", f"{plan.currency}/{item.unit or 'unit'}",
                          st.money(plan.currency, 2), "={price}", f"itm_{item.id}_unit_price",
                          price=inp[key + ("unit_price",)])
        sheet.row(f"{item.label or item.id} (quantity x price)", plan.currency, money, "={quantity}*{price}",
                  line, kind="figure", item=line, quantity=quantity, price=price)


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    ids = line_ids(plan)
    for item in _items(plan):
        line = ids[item.id]
        cf.section(item.title)
        for m in plan.markets:
            row = cf.spread(f"{item.title}: paid", f"{line}_{m.id}", cf.flags["first"], f"cf_itm_{item.id}_{m.id}",
                            m, line)
            cf.line(line, item.title, m, [row])
        cf.gap()


ITEM = LineItem(id="items", doc=rule(__doc__), known_lines=(), lines=lines, reference=reference, build=build,
                sheet_titles=sheet_titles, name_prefix="itm_", section=SECTION,
                monthly=monthly, cash_flow=cash_flow)
