"""Assemble the workbook: every sheet builder in tab order, then the openpyxl workbook."""

from __future__ import annotations

import datetime as dt

from openpyxl import Workbook

from ..plan.model import Plan
from .about import build_about
from .checks import build_checks
from ..lineitems.compute import build_compute
from ..lineitems.failed_runs import build_failed_runs
from .grid import Book, CellSpec
from .inputs_sheet import build_inputs
from ..lineitems.items import build_items
from .names import Inputs
from ..lineitems.people import build_people
from .procurement import build_procurement
from .openpyxl_book import render
from ..lineitems.serving import build_serving
from ..lineitems.storage_egress import build_storage
from .summary import build_summary
from .embed import embed_plan

def build_book(plan: Plan, today: dt.date | None = None) -> Book:
    """The whole workbook as plain data, sheets in tab order: inputs, calculations, outputs."""
    book = Book(plan.name)
    inp = Inputs(plan)
    build_about(book, plan, today or dt.date.today())
    build_inputs(book, plan)
    build_compute(book, plan, inp)
    build_failed_runs(book, plan, inp)
    build_storage(book, plan, inp)
    build_people(book, plan, inp)
    build_items(book, plan, inp)
    if plan.serving is not None:
        build_serving(book, plan, inp)
    build_summary(book, plan)
    build_procurement(book, plan)
    build_checks(book, plan, inp)
    return book


def workbook_layout(plan: Plan) -> list[CellSpec]:
    """Every named cell as generated: inputs, constants, calculations, figures and checks."""
    return build_book(plan, dt.date(2000, 1, 1)).layout()


def build_workbook(plan: Plan, plan_text: str, today: dt.date | None = None) -> Workbook:
    wb = render(build_book(plan, today))
    embed_plan(wb, plan_text)
    wb.properties.creator = "budgetbook"
    wb.properties.title = plan.name
    return wb
