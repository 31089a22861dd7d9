"""Read a generated workbook back: its embedded plan, its defined names, its current inputs.

Shared by `check` (which holds the figures against the reference) and
`extract` (which writes the inputs back as a plan). Cells are found by
workbook-scoped defined name, so inserted rows and reordered sheets do not
confuse it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..errors import BudgetbookError, PlanError, WorkbookError
from ..ledger.embed import read_embedded_actuals
from ..lineitems.adjustments import SECTION as ADJUSTMENTS
from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan
from ..plan.numbers import Num
from ..plan.yamlsafe import parse_yaml_text
from ..planfile.loader import plan_from_data
from ..progress import stage
from ..sheetkit.anchors import anchored_at
from ..sheetkit.embed import SHEET, read_embedded_plan
from ..sheetkit.grid import TooLarge
from ..workbook.build import build_book, figured_first, workbook_blueprint, workbook_layout
from ..workbook.stamp import read_stamp
from ..xlsx.evaluate import evaluate_later
from ..xlsx.formula_text import formula_of
from ..xlsx.lean_book import LeanSheet, stored_texts_of
from .cycles import cycle_through
from .findings import Finding, clipped, jsonable

ERROR_PREFIXES = ("#", "Err:")


@dataclass
class OpenedWorkbook:
    """A generated workbook as read back: its openpyxl book, embedded plan and defined names."""

    path: Path
    wb: Any                          # openpyxl workbook, formulas kept
    plan_text: str
    plan_tree: dict                  # the embedded plan's YAML, parsed once: the reference re-reads it with new inputs
    plan: Plan
    names: dict[str, tuple[str, str]]  # lower-case defined name -> (sheet title, "C7")
    findings: list[Finding] = field(default_factory=list)
    data: bytes = b""                  # the checked bytes: evaluate these, not the path again
    actuals: Any = None                # the imported bills (`ledger.model.Actuals`), when it carries them
    computed: Any = None               # its formulas computed as it was opened (`evaluate_later`), else None

    @cached_property
    def blueprint(self) -> Any:
        """The workbook budgetbook writes for this book's plan, as plain data: its sheets, labels and names."""
        try:
            if self.actuals is not None:  # the Actuals and Variance sheets too: laid out for this book alone
                import datetime as dt

                return build_book(self.plan, dt.date(2000, 1, 1), actuals=self.actuals, lean=True)
            return workbook_blueprint(self.plan)
        except PlanError as exc:  # its ids make one defined name twice: the workbook is what the user gave
            raise WorkbookError(f"its embedded plan cannot be laid out: {exc.reason}", source=str(self.path)) from None

    @cached_property
    def layout(self) -> tuple:
        """Every cell budgetbook writes for this book's plan (check audits and scans it more than once)."""
        _ = self.blueprint  # laid out together; a plan that cannot be is reported there, in the book's words
        if self.actuals is not None:
            return tuple(self.blueprint.layout())
        return workbook_layout(self.plan)

    @cached_property
    def sheet_titles(self) -> frozenset[str]:
        return frozenset(self.wb.sheetnames)  # openpyxl builds the list anew on every call

    @cached_property
    def located(self) -> dict[str, tuple[str, str]]:
        """{lower-case name: (sheet title, "C7")} of every cell of the layout that can be found: by its
        defined name, or by the names anchoring its row and column (`sheetkit.anchors`)."""
        found = dict(self.names)
        for spec in self.layout:
            if not spec.named and (name := _folded(spec.name)) not in found:  # the spec's own string, mostly
                where = anchored_at(spec, self._defined)
                if where is not None:
                    found[name] = where
        return found

    def _defined(self, name: str) -> tuple[str, str] | None:
        where = self.names.get(name.lower())
        return None if where is None or where[0] not in self.sheet_titles else where

    def locate(self, name: str) -> tuple[str, str] | None:
        where = self.names.get(name.lower())
        if where is None:
            where = self.located.get(name.lower())  # an anchored cell (the layout is read once, on first need)
        if where is None or where[0] not in self.sheet_titles:
            return None
        return where

    def where(self, name: str) -> tuple[str, str]:
        """The (sheet, cell) of a name `locate` has already found; KeyError if it is not there."""
        where = self.locate(name)
        if where is None:
            raise KeyError(name)
        return where

    def raw(self, name: str) -> Any:
        return self.value_at(*self.where(name))

    def value_at(self, sheet: str, cell: str) -> Any:
        """The value in `sheet`!`cell` (`D4`): read without a cell object from the lean reader's sheets."""
        ws = self.wb[sheet]
        return ws.value(cell) if isinstance(ws, LeanSheet) else ws[cell].value

    def evaluate(self) -> dict[str, Any]:
        """{lower-case name: value} of every defined name and anchored cell (`located`), evaluated from the
        bytes checked when the book was opened."""
        # every formula computed before the layout is made (`located`), their plans gone by then
        values = self.computed or self._guarded(evaluate_later, self.data or self.path, self.wb)
        self.computed = None  # its results are read once: the evaluated values hold what is wanted of them
        evaluated = self._guarded(values, _Anchored(self.located, self.names))
        if all(_folded(name) is name for name in evaluated):  # budgetbook's names: lower case, not copied
            return evaluated
        return {_folded(k): v for k, v in evaluated.items()}

    def _guarded(self, step: Any, *args: Any) -> Any:
        """`step(*args)`, a failure said as the book's."""
        try:
            return step(*args)
        except BudgetbookError as exc:
            raise exc.with_source(str(self.path)) from None
        except Exception as exc:  # noqa: BLE001 - the formulas package gives up on what it cannot parse in many ways
            raise WorkbookError(f"its formulas cannot be evaluated ({type(exc).__name__}: {exc})",
                                source=str(self.path)) from None


class _Anchored(Mapping):
    """{name: (sheet, cell)} of the cells `located` finds by their anchors, not by a defined name: read as a
    dict without being one (a copy was ~10 MB at the largest plan's `check` peak)."""

    def __init__(self, located: dict[str, tuple[str, str]], named: dict[str, tuple[str, str]]):
        self._located, self._named = located, named

    def __getitem__(self, name: str) -> tuple[str, str]:
        if name in self._named:
            raise KeyError(name)
        return self._located[name]

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._located if name not in self._named)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def is_error_value(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(ERROR_PREFIXES) and len(value) < 16


def workbook_names(wb) -> tuple[dict[str, tuple[str, str]], list[Finding]]:
    names: dict[str, tuple[str, str]] = {}
    findings = []
    plain = _PLAIN_CELL.fullmatch
    titles: dict[str, str] = {}  # each sheet title held once, not once a name (~50,000 in a big book)
    for name, definition in wb.defined_names.items():
        # one cell (`'Inputs'!$D$4`): a name that is a formula, an #REF! or a range is not one of ours
        # (openpyxl's `destinations` tokenizes every name's text: the slowest part of reading a big book)
        text = definition.attr_text or ""
        match = plain(text)  # as budgetbook writes it: what `single_cell` gives, without its steps
        if match is not None:
            title = match.group(1)
            where: tuple[str, str] | None = (titles.setdefault(title, title), match.group(2) + match.group(3))
        else:
            where = single_cell(text)
        if where is not None:
            names[_folded(name)] = where
    for ws in wb.worksheets:
        for name in getattr(ws, "defined_names", {}) or {}:
            findings.append(Finding("sheet_scoped_name", f"name `{name}` is scoped to sheet {ws.title}: "
                                    "it evaluates to #REF! outside Excel; make it workbook-scoped",
                                    sheet=ws.title, name=name))
    return names, findings


def _folded(name: str) -> str:
    """`name.lower()`, the name itself where it is lower case already (budgetbook's are): one string, not two."""
    low = name.lower()
    return name if low == name else low


_PLAIN_CELL = re.compile(r"'([^']+)'!\$([A-Z]{1,3})\$([0-9]{1,7})")  # `'Inputs'!$D$4`
_SHEET_CELL = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!:\s(),]+))!\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")


def single_cell(text: str) -> tuple[str, str] | None:
    """(sheet title, `D4`) of a defined name's text that is one sheet-qualified cell, else None."""
    match = _SHEET_CELL.match(text.strip())
    if match is None:
        return None
    quoted, plain_title, column, row = match.groups()
    return (quoted.replace("''", "'") if quoted is not None else plain_title), f"{column.upper()}{row}"


def open_book(path: Path, *, styles: bool = False, percentiles: bool = False, vouched: bool = False,
              computed: bool = False) -> OpenedWorkbook:
    """The workbook at `path`, verified and read in one pass (`xlsx.lean`); `styles`: loaded by openpyxl
    instead, number formats and comments kept (the overwrite guard compares them); `percentiles`: the
    Summary's simulation and the Sensitivity ranking run before the plan is laid out (`check` compares their
    numbers: made while the layout is not yet held, their arrays do not add to the peak, as in `generate`);
    `vouched`: an embedded plan its stamp vouches for (the digest `generate` wrote with it) is not laid out
    again, `generate` having laid it out to write the book (`show BOOK`, `extract`: they read no layout; a
    layout asked for later is made then, and a plan that cannot be is said there); `computed`: its formulas
    computed before the plan is laid out (`check`: the formulas' plans are let go of before the layout is
    made, only their results wait for it, `evaluate`; the largest plan's check peaked with both)."""
    from ..xlsx.safety import load_xlsx, read_xlsx  # on first use, not at import: loads defusedxml

    stage("opening")
    loaded = load_xlsx(path) if styles else read_xlsx(path)
    # openpyxl keeps each sheet's cells in a dict: its size is the count, read without touching a cell
    stage("reading", sum(len(getattr(ws, "_cells", ())) for ws in loaded.workbook.worksheets), "cells")
    if loaded.info.tables:
        raise WorkbookError("contains Excel tables (" + ", ".join(loaded.info.tables) + "), which the "
                            "formula evaluator cannot load; convert them to plain ranges", source=str(path))
    wb = loaded.workbook
    try:
        embedded = read_embedded_plan(wb, _stored_plan_cells(wb, loaded.info.data))
    except WorkbookError as exc:  # raised without the file's name: it only sees the sheet
        raise exc.with_source(str(path)) from None
    if embedded is None:
        raise WorkbookError("no embedded budgetbook plan: not a workbook made by `budgetbook generate`",
                            source=str(path))
    _version, text = embedded
    values = None

    def lay_out(plan: Plan) -> tuple:
        """Simulate, compute the formulas, lay the plan out: in that order, each holding the least of the others
        (`percentiles`, `computed`; the simulation's draws at the largest plan are ~150 MB while they last)."""
        nonlocal values
        if percentiles:
            figured_first(plan)
        if computed:
            values = evaluate_later(loaded.info.data or path, wb)
        return () if vouched and _stamped(wb, text) else workbook_layout(plan)

    try:
        tree = as_laid_out(parse_yaml_text(text), wb)
        plan = plan_from_data(tree, f"{path} (embedded plan)", lay_out=lay_out)
    except TooLarge as exc:
        raise WorkbookError(f"its embedded plan is too large: {exc.reason}", source=str(path)) from None
    except PlanError as exc:
        raise WorkbookError(f"its embedded plan is damaged: {exc.reason}", source=str(path)) from None
    names, findings = workbook_names(wb)
    findings = [Finding(kind, sentence) for kind, sentence in loaded.info.notes()] + findings

    try:
        actuals = read_embedded_actuals(wb, loaded.info.data, plan)
    except WorkbookError as exc:
        raise exc.with_source(str(path)) from None
    return OpenedWorkbook(path, wb, text, tree, plan, names, findings, loaded.info.data, actuals, values)


def _stamped(wb: Any, text: str) -> bool:
    """Whether the book's stamp holds the digest of this plan text (as `generate` wrote it)."""
    stamp = read_stamp(wb, SHEET)
    return stamp is not None and stamp.digest == stamp.expected_digest(text)


def as_laid_out(tree: Any, wb: Any) -> Any:
    """The embedded plan's tree as its book was laid out: a plan without `adjustments:` in a book with no
    Adjustments table was written before every book had one (issue 31), so it reads as `adjustments: null`
    (no sheet); a book that has the table reads it as the blank rows it is."""
    if not isinstance(tree, dict) or ADJUSTMENTS.key in tree:
        return tree
    if any(name.lower() == "adj_1_label" for name in wb.defined_names):
        return tree
    return {**tree, ADJUSTMENTS.key: None}


def _stored_plan_cells(wb, data: bytes) -> dict[str, str] | None:
    """The embedded plan's cells as stored in the file: openpyxl's reading of shared strings is lossy."""
    return stored_texts_of(wb, data, SHEET) if SHEET in wb.sheetnames else None


def read_number(book: OpenedWorkbook, name: str, evaluated: dict[str, Any]) -> Any:
    """The value of a named cell: typed constant, else what its formula evaluates to."""
    raw = book.raw(name)
    if formula_of(raw):
        return evaluated.get(name.lower(), evaluated.get(name))
    return raw


def evaluate_formula_inputs(book: OpenedWorkbook, cells: list[InputCell]) -> dict[str, Any]:
    """Evaluated values, computed only when some input holds a formula: typed inputs need no engine."""
    if not any(formula_of(book.raw(c.name)) for c in cells if book.locate(c.name)):
        return {}
    return book.evaluate()


def not_a_number(book: OpenedWorkbook, sheet: str, ref: str, raw: Any, value: Any) -> str:
    """What an input holds instead of a number, as "got ..." ends: short, and saying why a formula has no value."""
    formula = formula_of(raw)
    if formula is None:
        return "a blank cell" if value is None or value == "" else clipped(value)
    text = clipped(formula, quote=False)
    if value is None:
        cycle = cycle_through(book, sheet, ref)
        if cycle is None:
            return f"a formula with no value (`{text}`)"
        through = f" through {' -> '.join(cycle[1:-1])}" if len(cycle) > 2 else ""
        return f"a circular reference: its formula `{text}` reads itself{through}"
    if value == "#NUM!" or isinstance(value, float):
        return f"{clipped(value)}: its formula `{text}` does not give a finite number"
    return f"{clipped(value)} (from its formula `{text}`)"


def read_inputs(book: OpenedWorkbook, cells: list[InputCell], evaluated: dict[str, Any],
                baseline: dict[str, Num]) -> tuple[dict[tuple, Num], list[Finding]]:
    """Current value of every input, and findings: `missing`, `invalid_input`, `input_changed`."""
    values: dict[tuple, Num] = {}
    findings: list[Finding] = []
    for cell in cells:
        where = book.locate(cell.name)
        if where is None:
            findings.append(Finding("missing", f"input `{cell.name}` ({cell.key_path}) is gone: its defined "
                                    "name or sheet was deleted", name=cell.name))
            continue
        sheet, ref = where
        value = read_number(book, cell.name, evaluated)
        allowed = f"{cell.bounds.describe()}" + (f" {cell.bounds.unit}" if cell.bounds.unit else "")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            shown = not_a_number(book, sheet, ref, book.raw(cell.name), value)
            findings.append(Finding("invalid_input", f"{cell.label}: expected a number {allowed}, got {shown}",
                                    sheet=sheet, cell=ref, name=cell.name, actual=jsonable(value)))
            continue
        if not cell.bounds.allows(float(value)):
            findings.append(Finding("invalid_input", f"{cell.label}: {value:g} is out of range; must be "
                                    f"{allowed}", sheet=sheet, cell=ref, name=cell.name, actual=value))
            continue
        values[cell.path] = cell.num.with_base(float(value))
        old = baseline.get(cell.name)
        if old is not None and not math.isclose(old.base, float(value), rel_tol=1e-12, abs_tol=0.0):
            findings.append(Finding("input_changed", f"{cell.label}: {old.base:g} -> {value:g}",
                                    sheet=sheet, cell=ref, name=cell.name, expected=old.base, actual=value))
    return values, findings


__all__ = ["OpenedWorkbook", "input_cells", "is_error_value", "open_book", "read_inputs"]
