"""Assemble the workbook: Inputs, every line item's sheet in registry order, then the outputs."""

from __future__ import annotations

import datetime as dt

from openpyxl import Workbook

from .. import __version__
from ..lineitems.registry import LINE_ITEMS
from ..plan.model import Plan
from .about import build_about
from .checks import build_checks
from .embed import SHEET, embed_plan, read_embedded_plan
from .grid import Blueprint, CellSpec
from .inputs_sheet import build_inputs
from .names import Inputs
from .openpyxl_book import to_openpyxl
from .procurement import build_procurement
from .stamp import write_stamp
from .summary import build_summary


def build_book(plan: Plan, today: dt.date | None = None, version: str = __version__) -> Blueprint:
    """The whole workbook as plain data, sheets in tab order: inputs, calculations, outputs.

    `version` is the one written on About (the overwrite guard rebuilds a workbook as it was written).
    """
    book = Blueprint(plan.name)
    inp = Inputs(plan)
    build_about(book, plan, today or dt.date.today(), version)
    build_inputs(book, plan, inp.cells)
    for item in LINE_ITEMS:
        item.build(book, plan, inp)
    build_summary(book, plan)
    build_procurement(book, plan)
    build_checks(book, plan, inp)
    return book


def workbook_layout(plan: Plan) -> list[CellSpec]:
    """Every named cell as generated: inputs, constants, calculations, figures and checks."""
    return build_book(plan, dt.date(2000, 1, 1)).layout()


def build_workbook(plan: Plan, plan_text: str, today: dt.date | None = None, *, version: str = __version__,
                   stamp: bool = True) -> Workbook:
    """The openpyxl workbook; `stamp=False` leaves out the stamp (to rebuild a workbook made before stamps)."""
    today = today or dt.date.today()
    wb = to_openpyxl(build_book(plan, today, version))
    embed_plan(wb, plan_text)
    if stamp:
        embedded = read_embedded_plan(wb)
        assert embedded is not None  # just written
        write_stamp(wb, SHEET, embedded[1], today, version)
    wb.properties.creator = "budgetbook"
    wb.properties.title = plan.name
    return wb
