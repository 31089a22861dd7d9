"""Evaluate a workbook's named cells with the `formulas` package, compiling each formula shape once.

`formulas.ExcelModel().loads()` compiles every formula cell and every defined
name into its own schedula dispatcher; on a budgetbook workbook that is ~800
compilations and most of `check`'s time. This module evaluates the same
workbook with the same parser and Excel function implementations, but:

- reads cells with openpyxl and resolves workbook-scoped defined names to
  their cells itself (no compilation per name; `cell_grid`);
- compiles each distinct formula *shape* once. A shape is the formula's token
  sequence with every reference (A1 cell, A1 range, sheet-qualified or not,
  or a defined name) replaced by a placeholder reference `PHi!A1` (a range
  keeps its height and width, `PHi!A1:B3`); two references to the same cell
  share one placeholder. `=C8/wl_mfu` in C9 and `=D8/wl_mfu` in D9 are one
  shape; so are `=compute_x` and `=compute_y`. A placeholder stands for
  any reference because `formulas` reads a reference's *value* (a
  `formulas.ranges.Ranges`) at call time; the few functions that read a
  reference's *address* or the calling cell (ROW, COLUMN, SINGLE, INDIRECT,
  OFFSET, ...) and the reference operators (`:` between operands,
  intersection, union) are not shared: such a formula raises `Unsupported`
  (`shapes`);
- evaluates formula cells in dependency order, passing each input as a
  `Ranges` holding the referenced cell(s) values, exactly as ExcelModel's
  `Cell._args` does, and filtering results like ExcelModel (`replace_empty`,
  then `format_output` to the cell's range). That is this module.

Semantics kept equal to the ExcelModel path (`evaluate.evaluate_workbook`):

- numeric cells are rounded to 15 decimals, as `ExcelModel.compile_cell` does;
- a reference to a sheet that does not exist reads `#REF!`;
- a circular reference: ExcelModel (without `circular=True`) leaves every cell
  of a cycle, and every cell that reads one, without a value; so does this
  module: those names evaluate to None (not an error text), which is what
  `check` reports as a circular reference / "not computed". The dependency
  walk is iterative and marks cycles; it never recurses or hangs;
- a formula whose evaluation raises leaves that cell (and its readers) without
  a value, as ExcelModel's dispatcher does; NotImplementedError gives #NAME?;
- Excel errors come back as text ('#DIV/0!', '#REF!', '#NAME?', '#VALUE!').

Whole columns and rows (`A:A`, `Inputs!3:5`) given straight to a function that
ignores blank cells (`shapes.BLANK_BLIND_FUNCTIONS`: `=SUM(Inputs!A:A)`) are
cut to the sheet's used rows or columns (`CellGrid.clamp`): what lies beyond is
blank, so the value is the full column's, which ExcelModel gets by building all
1,048,576 rows of it. So is a defined name of whole columns, read only there.

Anything else raises `Unsupported`, and `evaluate_workbook` falls back to
ExcelModel (after `model_cost` has weighed what that would build): array
formulas, data-table formulas, external workbook refs, whole columns or rows
anywhere else (`=COUNTBLANK(A:A)`, `=SUM(1/A:A)`), table (structured) refs,
ranges over 100,000 cells,
names that are not a plain cell/range reference, names a formula uses that
are not defined, error or date cells, strings with `_x` escapes (formulas'
reader decodes those), sheet-scoped names, reference operators and whitespace
inside formulas, reference/address functions, and any formula that `formulas`
cannot parse or compile.
"""
from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from itertools import compress, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import numpy as np
import schedula as sh

from ..heap import give_back_freed_memory
from ..progress import stage
from .cell_grid import Area, CellGrid, CellKey, PlainCell, Unsupported, col_letters, parse_ref
from .collector import paused
from .lean_book import LeanWorkbook
from .numeric import NumericShape
from .schedule import batches
from .shapes import Compiled, FormulaPlan, Target, plan_formulas
from .steps import StepFailed
from .values import plain

if TYPE_CHECKING:  # `formulas` is imported only for the cells `numeric` leaves to it
    from formulas.ranges import Ranges

__all__ = ["Unsupported", "computed", "evaluate_cells", "evaluate_fast"]

_NO_VALUE = object()  # a formula that raised: its cell, and every cell reading it, stays without a value
_NOT_COMPUTED = object()  # no result there (`_cell_values`): a formula without one, a value, a blank, no sheet


def evaluate_fast(source: Any, cells: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """{defined name: value} for every workbook-scoped name, and {name: value} of each of `cells`
    ({name: (sheet title, "C7")}); Excel errors as text; see the module doc."""
    return computed(source)(cells)


def computed(source: Any) -> Callable[[Mapping[str, tuple[str, str]] | None], dict[str, Any]]:
    """`evaluate_fast(source, cells)` in two steps: the formulas computed now (their plans let go of), the
    names' and `cells`' values read when the function returned is called (`evaluate.evaluate_later`)."""
    with paused():
        evaluator = _evaluated(CellGrid(load_workbook_of(source)))
        evaluator.settle()
    give_back_freed_memory()  # the plans' and schedule's tables: ~50 MB on the largest plan (`heap`)

    def named(cells: Mapping[str, tuple[str, str]] | None) -> dict[str, Any]:
        with paused():
            return _named_values(evaluator, cells)

    return named


def _named_values(evaluator: _Evaluator, cells: Mapping[str, tuple[str, str]] | None) -> dict[str, Any]:
    grid = evaluator.grid
    names = {}
    value_at = evaluator.raw_value
    areas = grid.names
    for name in grid.workbook.defined_names:
        value = value_at(areas[name.upper()])
        names[name] = value if type(value) in _PLAIN else None if value is None else plain(value)
    for name, (sheet, cell) in (cells or {}).items():
        area = parse_ref(cell, sheet)
        value = None if area is None else value_at(area)
        names[name] = value if type(value) in _PLAIN else None if value is None else plain(value)
    return names


_PLAIN = frozenset({float, int, str, bool})  # what `plain` returns unchanged: most values, spared its tests


def evaluate_cells(workbook: Any, cells: Mapping[str, Iterable[PlainCell]] | None = None,
                   names: Mapping[str, str] | None = None) -> dict[CellKey, Any]:
    """{(SHEET, row, col): value} of every formula cell that has one, as `formulas` computes it (raw:
    numpy scalars, Excel errors as `XlError`); for a workbook being written (`workbook.cached`), whose
    text cells still hold the `_xHHHH_` escapes the file will carry; `cells`: the cells of the sheets
    it names, read instead of the worksheets' own, and `names` ({name: reference}) as well as the workbook's
    (`CellGrid`). Raises `Unsupported` like `evaluate_fast`."""
    with paused():
        return dict(_evaluated(CellGrid(workbook, decode_text=True, cells=cells, names=names)).results)


def _evaluated(grid: CellGrid) -> _Evaluator:
    stage("evaluating", len(grid.formulas), "formula cells")
    plans = plan_formulas(grid)
    evaluator = _Evaluator(grid)
    for batch in batches(grid, plans):
        evaluator.compute(batch, plans)
    return evaluator


def load_workbook_of(source: Any) -> Any:
    """An openpyxl workbook from a workbook (openpyxl's or the lean reader's, as it is), bytes or a path."""
    if isinstance(source, LeanWorkbook):  # openpyxl not imported for it (~0.15 s)
        return source
    from openpyxl import Workbook, load_workbook

    if isinstance(source, Workbook):
        return source
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        try:
            with open(os.fspath(source), "rb") as fh:
                data = fh.read()
        except (OSError, TypeError, ValueError) as exc:
            raise Unsupported(f"cannot read: {type(exc).__name__}") from None
    try:
        return load_workbook(io.BytesIO(data), read_only=False)
    except Exception as exc:  # noqa: BLE001  anything openpyxl cannot read is ExcelModel's to report
        raise Unsupported(f"openpyxl: {type(exc).__name__}") from None


@cache
def _error(text: str) -> Any:
    from formulas.tokens.operand import Error

    return Error.errors[text]


def _area(target: Target) -> Area:
    """A plan's target as an area: a cell's key (`shapes.FormulaPlan`) as the 1x1 area at it."""
    if len(target) == 3:
        sheet, row, col = target
        return (sheet, row, col, row, col)
    return target


def _range_of(target: Area) -> Ranges:
    from formulas.ranges import Ranges

    sheet, r1, c1, r2, c2 = target
    a = f"{col_letters(c1)}{r1}"
    ref = a if (r1, c1) == (r2, c2) else f"{a}:{col_letters(c2)}{r2}"
    quoted = "'" + sheet.replace("'", "''") + "'"
    return Ranges.get_range(f"{quoted}!{ref}")


class _Evaluator:
    """Formula cells' results, computed in dependency order, and the value of any reference to the grid."""

    def __init__(self, grid: CellGrid):
        self.grid = grid
        self.results: dict[CellKey, Any] = {}  # the cell's value, as a 1x1 result holds it; absent: no value
        self._sheets, self._formulas, self._values = grid.sheets, grid.formulas, grid.values

    def settle(self) -> None:
        """Hold only what reading values needs, once every formula is computed (`CellGrid.settle`)."""
        self.results = self._formulas = self.grid.settle(self.results)  # type: ignore[assignment]
        self._values = self.grid.values

    def compute(self, batch: list[CellKey], plans: dict[CellKey, FormulaPlan]) -> None:
        """Store the result of every cell of the batch that has one (see `schedule.batches`).

        `numeric` computes what it can; `formulas` the cells it refuses, and shapes it cannot read.
        """
        shape = plans[batch[0]].shape
        left = batch if shape.numeric is None else self._compute_numeric(batch, plans, shape.numeric)
        if not left:
            return
        if len(left) == 1 or not shape.compiled.elementwise or not self._compute_column(left, plans):
            for cell in left:
                self._compute_one(cell, plans[cell])

    def _compute_numeric(self, batch: list[CellKey], plans: dict[CellKey, FormulaPlan],
                         numeric: NumericShape) -> list[CellKey]:
        """Compute the batch with numpy where `numeric` answers; the cells it refuses, for `formulas`.

        The inputs are gathered a column (placeholder) at a time; a cell with an input without a value is
        left without one, as alone.
        """
        rows = [plans[cell].targets for cell in batch]
        columns: dict[int, list[Any]] = {}
        for i in range(len(rows[0])):
            targets = [row[i] for row in rows]
            columns[i] = [self._area_cells(t) for t in targets] if i in numeric.ranges else self._cell_values(targets)
        cells = batch
        if any(any(map(is_, column, repeat(None))) for column in columns.values()):
            keep = [all(column[j] is not None for column in columns.values()) for j in range(len(batch))]
            cells = list(compress(batch, keep))
            columns = {i: list(compress(column, keep)) for i, column in columns.items()}
        if not cells:
            return []
        values, ok = numeric.run(columns, len(cells))
        refused = []
        for cell, value, answered in zip(cells, values, ok, strict=True):
            if answered:
                self.results[cell] = value
            else:
                refused.append(cell)
        return refused

    def _compute_one(self, cell: CellKey, plan: FormulaPlan) -> None:
        """Store the cell's result, unless an input has no value or the formula raises."""
        from formulas.cell import format_output
        from formulas.functions import replace_empty

        compiled = plan.shape.compiled
        args = []
        for i in compiled.order:
            value = self.value_of(plan.targets[i])
            if value is None:
                return
            args.append(value)
        out = self._call(compiled, args)
        if out is not _NO_VALUE:
            sheet, row, col = cell
            self.results[cell] = format_output(_range_of((sheet, row, col, row, col)), replace_empty(out)).value[0, 0]

    def _compute_column(self, batch: list[CellKey], plans: dict[CellKey, FormulaPlan]) -> bool:
        """One call for the whole batch, each input a column with a row per cell; False to go cell by cell.

        The batch shares an elementwise shape (`shapes.is_elementwise`): row i of the result is what
        cell i alone would give. A cell with an input without a value is left without one, as alone.
        """
        from formulas.cell import format_output
        from formulas.functions import replace_empty
        from formulas.ranges import Ranges

        compiled = plans[batch[0]].shape.compiled
        cells: list[CellKey] = []
        columns: list[list[Any]] = [[] for _ in compiled.order]
        for cell in batch:
            row = [self.raw_value(plans[cell].targets[i]) for i in compiled.order]
            if any(v is None for v in row):
                continue
            cells.append(cell)
            for column, value in zip(columns, row, strict=True):
                column.append(value)
        if not cells:
            return True
        rng = _range_of(("COLUMN", 1, 1, len(cells), 1))
        args = [format_output(rng, np.array(column, object).reshape(-1, 1)) for column in columns]
        out = self._call(compiled, args)
        if out is _NO_VALUE:
            return False  # which cell raised is for each cell to find out alone
        out = replace_empty(out)
        values = np.asarray(out.value if isinstance(out, Ranges) else out, object)
        if values.shape != (len(cells), 1):
            return False
        for cell, value in zip(cells, values[:, 0], strict=True):
            self.results[cell] = value
        return True

    @staticmethod
    def _call(compiled: Compiled, args: list[Ranges]) -> Any:
        if compiled.steps is not None:
            try:
                return compiled.steps(*args)
            except StepFailed:
                pass  # the dispatcher says what the failure means
        try:
            return compiled.func(*args)
        except sh.DispatcherError as ex:
            return _error("#NAME?") if isinstance(ex.ex, NotImplementedError) else _NO_VALUE
        except Exception:  # noqa: BLE001  as ExcelModel's dispatcher: a formula that raises has no value
            return _NO_VALUE

    def _cell_values(self, targets: list[Target]) -> list[Any]:
        """`raw_value` of each of `targets`, every one a single cell: a formula cell's result found by one
        look-up, the others (not computed, a value, a blank, another sheet) one by one."""
        formulas, values, results = self._formulas, self._values, self.results
        keys = [target[:3] for target in targets]
        out = [results.get(key, _NOT_COMPUTED) for key in keys]
        if any(map(is_, out, repeat(_NOT_COMPUTED))):
            for j, key in enumerate(keys):
                if out[j] is _NOT_COMPUTED:
                    value = None if key in formulas else values.get(key, _NOT_COMPUTED)
                    out[j] = self.raw_value(targets[j]) if value is _NOT_COMPUTED else value
        return out

    def raw_value(self, target: Target) -> Any:
        """What a single cell holds as a 1x1 result would (a Ranges for an area); None: no value."""
        if len(target) == 3:
            key = target
        else:
            sheet, r1, c1, r2, c2 = target
            if r1 != r2 or c1 != c2:
                return self.value_of(target)
            key = (sheet, r1, c1)
        if key[0] not in self._sheets:
            return _error("#REF!")
        if key in self._formulas:
            return self.results.get(key)
        return self._values.get(key, sh.EMPTY)

    def value_of(self, target: Target) -> Ranges | None:
        """A Ranges for a reference, or None when a formula cell it covers has no value."""
        from formulas.cell import format_output
        from formulas.functions import replace_empty

        target = _area(target)
        sheet, r1, c1, r2, c2 = target
        rng = _range_of(target)
        if sheet not in self.grid.sheets:
            return format_output(rng, replace_empty(_error("#REF!")))
        if (r1, c1) == (r2, c2):
            value = self.raw_value(target)
            return None if value is None else format_output(rng, [[value]])
        cells = self._area_cells(target)
        return None if cells is None else format_output(rng, cells)

    def _area_cells(self, target: Target) -> np.ndarray | None:
        """An area's values (blank cells as schedula's EMPTY), or None when a formula cell in it has no value."""
        sheet, r1, c1, r2, c2 = _area(target)
        if sheet not in self.grid.sheets:
            return np.array([[_error("#REF!")]], object)
        formulas, values, results = self.grid.formulas, self.grid.values, self.results
        out = np.empty((r2 - r1 + 1, c2 - c1 + 1), object)
        out[:] = sh.EMPTY
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                key = (sheet, r, c)
                if key in formulas:
                    got = results.get(key)
                    if got is None:
                        return None
                    out[r - r1, c - c1] = got
                elif key in values:
                    out[r - r1, c - c1] = values[key]
        return out
