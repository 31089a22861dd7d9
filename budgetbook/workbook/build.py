"""Assemble the workbook: Inputs, every line item's sheet in registry order, then the outputs."""

from __future__ import annotations

import datetime as dt
import weakref
from typing import TYPE_CHECKING

from ..lineitems.registry import LINE_ITEMS
from ..plan.model import Plan
from .about import build_about
from .cash_flow import build_cash_flow
from .checks import build_checks
from .embed import embed_plan
from .grid import Blueprint, CellSpec
from .inputs_sheet import build_inputs
from .names import Inputs
from .procurement import build_procurement
from .summary import build_summary

if TYPE_CHECKING:  # the plan loader lays every plan out (`build_book`): `show` must not pay for openpyxl
    from openpyxl import Workbook


def build_book(plan: Plan, today: dt.date | None = None) -> Blueprint:
    """The whole workbook as plain data, sheets in tab order: inputs, calculations, outputs."""
    book = Blueprint(plan.name)
    inp = Inputs(plan)
    build_about(book, plan, today or dt.date.today())
    build_inputs(book, plan, inp.cells)
    for item in LINE_ITEMS:
        item.build(book, plan, inp)
    build_summary(book, plan)
    build_procurement(book, plan)
    build_cash_flow(book, plan, inp)
    build_checks(book, plan, inp)
    return book


_LAYOUTS: dict[int, tuple[weakref.ref, tuple[CellSpec, ...]]] = {}


def workbook_layout(plan: Plan) -> tuple[CellSpec, ...]:
    """Every named cell as generated: inputs, constants, calculations, figures and checks.

    Laid out once per plan object (plans are frozen): loading a plan lays it out to refuse what
    cannot be written, and `check` reads the layout again; on a big portfolio each layout is ~1 s.
    """
    key = id(plan)
    known = _LAYOUTS.get(key)
    if known is not None and known[0]() is plan:
        return known[1]
    layout = tuple(build_book(plan, dt.date(2000, 1, 1)).layout())
    _LAYOUTS[key] = (weakref.ref(plan, lambda _ref: _LAYOUTS.pop(key, None)), layout)
    return layout


def build_workbook(plan: Plan, plan_text: str, today: dt.date | None = None) -> Workbook:
    from .openpyxl_book import to_openpyxl

    wb = to_openpyxl(build_book(plan, today))
    embed_plan(wb, plan_text)
    wb.properties.creator = "budgetbook"
    wb.properties.title = plan.name
    return wb
