"""Assemble the workbook: Inputs, every line item's sheet in registry order, then the outputs."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from .. import __version__
from ..ledger.embed import embed_actuals
from ..ledger.model import Actuals
from ..ledger.sheets import build_actuals_sheets
from ..lineitems import gap
from ..lineitems.registry import LINE_ITEMS
from ..physics.model import physics_rows
from ..plan.comments import input_comments
from ..plan.model import Plan
from ..sheetkit.anchors import anchor
from ..sheetkit.cash_flow import TITLE as CASH_FLOW
from ..sheetkit.embed import SHEET, embed_plan, read_embedded_plan
from ..sheetkit.grid import Blueprint, CellSpec
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet
from .about import build_about
from .cash_flow import build_cash_flow
from .checks import build_checks
from .fit_sheet import build_fit
from .inputs_sheet import build_inputs
from .memo import PlanMemo
from .options_sheet import build_options
from .percentiles import simulate_first
from .procurement import build_procurement
from .protect import protect_workbook
from .sensitivity import build_sensitivity, rank_first
from .stamp import write_stamp
from .summary import build_summary

if TYPE_CHECKING:  # the layout (every command's load) needs no openpyxl, only writing a book does
    from openpyxl import Workbook

    from .streamed import StreamedBook


def build_book(plan: Plan, today: dt.date | None = None, version: str = __version__,
               plan_text: str = "", actuals: Actuals | None = None, *, lean: bool = False) -> Blueprint:
    """The whole workbook as plain data, sheets in tab order: inputs, calculations, outputs.

    `version` is the one written on About (the overwrite guard rebuilds a workbook as it was written);
    `plan_text`, the plan as written, gives each input the source its YAML comment cites;
    `actuals` (imported bills) add the Actuals and Variance sheets last; `lean`: to be read, not written
    (`Blueprint`'s).
    """
    book = Blueprint(plan.name, lean=lean)
    book.dated, book.version = today or dt.date.today(), version
    inp = Inputs(plan)
    build_about(book, plan, book.dated, version)
    notes = input_comments(plan_text, [cell.path for cell in inp.cells]) if plan_text else {}
    build_inputs(book, plan, inp.cells, notes)
    for item in LINE_ITEMS:
        item.build(book, plan, inp)
    build_fit(book, plan, inp)  # after the line items, in their tab order: it reads their rows
    gap_at = build_summary(book, plan)
    build_procurement(book, plan)
    gap.summary_rows(CalcSheet.resume(book, plan, "Summary"), plan, gap_at)  # the figures are on Procurement
    build_options(book, plan, inp)
    build_cash_flow(book, plan, inp)
    build_sensitivity(book, plan)
    build_checks(book, plan, inp, actuals)
    if actuals is not None:
        build_actuals_sheets(book, plan, actuals)
    for sheet in book.sheets:
        if sheet.role in ("calc", "output"):
            sheet.fit_labels()
    # named: what users read and type; found by row and column anchors: the other calculations (`anchors`)
    anchor(book, [s.title for s in book.sheets if s.role == "calc"] + [CASH_FLOW],
           lambda: [row[0] for row in physics_rows(plan)])
    return book


def figured_first(plan: Plan) -> None:
    """The Summary's simulation and the Sensitivity ranking worked out now, before the plan is laid out
    (`generate`, `check`): their arrays are made and gone while little else is held (memory: docs/scale.md)."""
    simulate_first(plan)
    rank_first(plan)


def _lay_out(plan: Plan) -> tuple[Blueprint, tuple[CellSpec, ...]]:
    """The plan's blueprint (dated 2000-01-01: nothing laid out depends on the date) and its layout."""
    blueprint = build_book(plan, dt.date(2000, 1, 1), lean=True)
    layout = tuple(blueprint.layout())
    blueprint.shed_formulas()  # read, never written: its formula texts are in the layout (memory, issue 27)
    return blueprint, layout


# Laid out once per plan (`memo.PlanMemo`: per object, and per content while a plan of it lives):
# loading a plan lays it out to refuse what cannot be written, and `check`, `extract`, `diff` and
# `show BOOK` read the layout and the blueprint again, of the same plan or another of its content;
# on a big portfolio each build is ~2 s. Callers read both, never change them.
_laid_out: PlanMemo[tuple[Blueprint, tuple[CellSpec, ...]]] = PlanMemo(_lay_out)


def workbook_blueprint(plan: Plan) -> Blueprint:
    """The workbook as designed for `plan`, as plain data (shared: read it, do not change it)."""
    return _laid_out(plan)[0]


def workbook_layout(plan: Plan) -> tuple[CellSpec, ...]:
    """Every named cell as generated: inputs, constants, calculations, figures and checks."""
    return _laid_out(plan)[1]


def build_workbook(plan: Plan, plan_text: str, today: dt.date | None = None, *, version: str = __version__,
                   stamp: bool = True, actuals: Actuals | None = None, password: str | None = None,
                   blueprint: Blueprint | None = None) -> Workbook:
    """The openpyxl workbook; `stamp=False` leaves out the stamp (to rebuild a workbook made before stamps).

    Every sheet is protected, inputs unlocked; `password` sets one (see `protect`). `blueprint`: the
    plan already built (`build_book` of this plan, text and version, without actuals), dated as it is.
    """
    blueprint = _blueprint(plan, plan_text, today, version, actuals, blueprint)
    from .openpyxl_book import to_openpyxl  # on writing, not at import: loads openpyxl (~0.3 s)

    return _finished(to_openpyxl(blueprint), blueprint, plan, plan_text, stamp, actuals, password)


def build_streamed(plan: Plan, plan_text: str, today: dt.date | None = None, *, actuals: Actuals | None = None,
                   password: str | None = None, blueprint: Blueprint | None = None) -> StreamedBook | Workbook:
    """`build_workbook` (stamped) with the blueprint's cells kept out of openpyxl, to be written straight into
    the package (`streamed`, `write.save_built`); the openpyxl workbook where a cell holds a value only
    openpyxl's own way writes. Takes `blueprint` (see `StreamedBook`)."""
    blueprint = _blueprint(plan, plan_text, today, __version__, actuals, blueprint)
    blueprint.shed_layout()  # taken: only its writing is left (memory, at the largest plan)
    from .streamed import StreamedBook, Unstreamable  # on writing, not at import: loads openpyxl (~0.3 s)

    try:
        book = StreamedBook(blueprint)
    except Unstreamable:
        from .openpyxl_book import to_openpyxl  # on writing, not at import: loads openpyxl (~0.3 s)

        return _finished(to_openpyxl(blueprint), blueprint, plan, plan_text, True, actuals, password)
    _finished(book.wb, blueprint, plan, plan_text, True, actuals, password)
    return book


def _blueprint(plan: Plan, plan_text: str, today: dt.date | None, version: str, actuals: Actuals | None,
               blueprint: Blueprint | None) -> Blueprint:
    if blueprint is None:
        return build_book(plan, today or dt.date.today(), version, plan_text, actuals)
    if actuals is not None or blueprint.version != version or today not in (None, blueprint.dated):
        raise ValueError("a blueprint built otherwise than asked")
    return blueprint


def _finished(wb: Workbook, blueprint: Blueprint, plan: Plan, plan_text: str, stamp: bool,
              actuals: Actuals | None, password: str | None) -> Workbook:
    """The rendered workbook with the plan (and actuals) embedded, stamped, titled and protected."""
    embed_plan(wb, plan_text)
    if actuals is not None:
        embed_actuals(wb, actuals)
    if stamp:
        embedded = read_embedded_plan(wb)
        assert embedded is not None  # just written
        write_stamp(wb, SHEET, embedded[1], blueprint.dated, blueprint.version)
    wb.properties.creator = "budgetbook"
    wb.properties.title = plan.name
    protect_workbook(wb, password)
    return wb
