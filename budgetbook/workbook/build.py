"""Assemble the workbook: Inputs, every line item's sheet in registry order, then the outputs."""

from __future__ import annotations

import datetime as dt

from openpyxl import Workbook

from ..lineitems.registry import LINE_ITEMS
from ..plan.model import Plan
from .about import build_about
from .cash_flow import build_cash_flow
from .checks import build_checks
from .embed import embed_plan
from .grid import Blueprint, CellSpec
from .inputs_sheet import build_inputs
from .names import Inputs
from .openpyxl_book import to_openpyxl
from .procurement import build_procurement
from .summary import build_summary


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


def workbook_layout(plan: Plan) -> list[CellSpec]:
    """Every named cell as generated: inputs, constants, calculations, figures and checks."""
    return build_book(plan, dt.date(2000, 1, 1)).layout()


def build_workbook(plan: Plan, plan_text: str, today: dt.date | None = None) -> Workbook:
    wb = to_openpyxl(build_book(plan, today))
    embed_plan(wb, plan_text)
    wb.properties.creator = "budgetbook"
    wb.properties.title = plan.name
    return wb
