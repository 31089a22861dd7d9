"""`extract`: a workbook's current inputs written back as a plan, keeping the plan's comments."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..errors import PlanError, WorkbookError
from ..output.plaintext import visible
from ..plan.comments import with_comments
from ..plan.inputs import InputCell, changed_values, input_cells
from ..plan.model import Plan
from ..plan.numbers import Num
from ..planfile.loader import PlanWarning, plan_from_text
from ..planfile.rewrite import rewrite_values
from ..sheetkit.market_labels import label_text, market_labels
from ..xlsx.a1 import get_column_letter
from .adjustments import as_planned, has_table, read_rows
from .findings import INPUT_PROBLEMS
from .input_cell_errors import as_workbook_error
from .notes import edited_notes
from .readback import OpenedWorkbook, evaluate_formula_inputs, open_book, read_inputs
from .widen import covering, widened_message

RANGE_HEADERS = ("low", "high")


def _header_rows(ws: Any) -> list[tuple[int, dict[str, int]]]:
    """(row, {"low": column, "high": column}) of the rows above row 30 that head both, top first.

    Read from the cells that exist: `ws[row]` would create a cell in every column up to the sheet's last.
    """
    found: dict[int, dict[str, int]] = {}
    for (row, column), cell in sorted(ws._cells.items()):
        if row < 30 and isinstance(cell.value, str) and cell.value.strip().lower() in RANGE_HEADERS:
            found.setdefault(row, {})[cell.value.strip().lower()] = column
    return [(row, columns) for row, columns in sorted(found.items()) if len(columns) == 2]


def _range_columns(headers: list[tuple[int, dict[str, int]]], row: int) -> dict[str, int]:
    """Columns headed `Low` and `High` above `row` (found by header, so moved columns still work)."""
    return next((columns for header_row, columns in headers if header_row < row), {})


def current_ranges(book: OpenedWorkbook, cells: list[InputCell], values: dict[tuple, Num]) -> dict[tuple, Num]:
    """Each input's value with the low and high beside it on its row, where they are numbers; a value outside
    them widens the range (a warning on stderr says so)."""
    out = {}
    headers: dict[str, list[tuple[int, dict[str, int]]]] = {}  # per sheet, read once
    for cell in cells:
        if cell.path not in values:
            continue
        base = values[cell.path].base
        sheet, ref = book.where(cell.name)
        row = book.wb[sheet][ref].row
        if sheet not in headers:
            headers[sheet] = _header_rows(book.wb[sheet])
        columns = _range_columns(headers[sheet], row)
        ends = {k: book.wb[sheet].cell(row=row, column=c).value for k, c in columns.items()}
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in ends.values()) \
                and len(ends) == 2:
            low, high = float(ends["low"]), float(ends["high"])
            for end, value in (("low", low), ("high", high)):
                if not cell.bounds.allows(value):  # only the hard bounds refuse (what the validation enforces)
                    at = f"{sheet}!{get_column_letter(columns[end])}{row} ({cell.name}_{end})"
                    raise WorkbookError(f"{at}: {cell.label} ({end}): {value:g} is out of range; must be "
                                        f"{cell.bounds.describe()}", source=str(book.path))
            message = widened_message(cell, base, low, high)
            if message is not None:  # a fair edit: written as the range covering it, and said (`widen.py`)
                # a label from the plan may hold escapes: shown, never obeyed (one line, as every warning)
                warnings.warn(visible(f"{book.path}: {sheet}!{ref} ({cell.name}): {message}"), stacklevel=2)
            out[cell.path] = covering(cell, base, low, high)
        else:
            out[cell.path] = Num(base, base, base, False, cell.num.lowers_cost)
    return out


def extract_plan_text(path: Path) -> str:
    """The plan text `extract` writes; a warning of the plan is said once, of the extracted plan."""
    with _unsaid():
        book = open_book(path, vouched=True)
    return current_plan_text(book)


def extracted(path: Path) -> tuple[str, Plan]:
    """(the plan text of the workbook's current inputs, its embedded plan: a plan of the text's ids is
    as writable as it is, `plan_from_data(shaped_like=)`); the plans' warnings left to the caller's loading
    of the text (`show BOOK` said each three times: of the embedded, the extracted and the shown plan)."""
    with _unsaid():
        book = open_book(path, vouched=True)
        return current_plan_text(book), book.plan


@contextmanager
def _unsaid() -> Iterator[None]:
    """The plan warnings of what runs inside left unsaid (another load of the same plan says them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PlanWarning)
        yield


def current_plan_text(book: OpenedWorkbook) -> str:
    """The plan text of an opened workbook's current inputs (what `extract` writes)."""
    path = book.path
    cells = input_cells(book.plan)
    values, findings = read_inputs(book, cells, evaluate_formula_inputs(book, cells), {})
    problems = [f for f in findings if f.kind in INPUT_PROBLEMS]
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise WorkbookError(f"{first.where}: {first.message}{more}", source=str(path))
    text = rewrite_plan(book.plan_text, current_ranges(book, cells, values), book)
    text = with_comments(text, edited_notes(book, cells))  # a note edited on Inputs: the key's comment
    try:
        plan_from_text(text, f"{path} (extracted plan)", shaped_like=book.plan)  # what we write must load
    except PlanError as exc:  # a rule across inputs: named by its cell
        raise as_workbook_error(book, cells, exc) from None
    return text


def rewrite_plan(text: str, values: dict[tuple, Num], book: OpenedWorkbook) -> str:
    """The embedded plan's text with the workbook's current inputs, comments kept (`planfile.rewrite`); the
    text itself where nothing was edited (its own layout kept, and no YAML round trip: ~0.4 s at 40x4)."""
    rows, labels = _edited_rows(book), _relabelled(book, values)
    if rows is None and not labels and not changed_values(book.plan, values):
        return text
    return rewrite_values(text, book.plan, values, lambda data: _relabel(data, labels, rows))


def _edited_rows(book: OpenedWorkbook) -> list[dict] | None:
    """The Adjustments table's rows, where they differ from the plan's `adjustments:` (else None)."""
    if not has_table(book):
        return None
    rows, _ = read_rows(book)
    return None if as_planned(book, rows) else rows  # as the plan wrote them: keep its spelling and comments


def _with_adjustments(data: Any, rows: list[dict] | None) -> None:
    """The Adjustments table's rows as `adjustments:`, each note also its label's comment (rows refused,
    `check`'s `invalid_input`, are left out)."""
    if rows is None:
        return
    seq = CommentedSeq()
    for row in rows:
        entry = CommentedMap(row)
        if row.get("note"):
            entry.yaml_add_eol_comment(row["note"].replace("\n", " ")[:200], "label")
        seq.append(entry)
    data["adjustments"] = seq


def _relabel(data: Any, labels: dict[int, str], rows: list[dict] | None) -> None:
    """A market label citing a price that was edited says the new price, as the workbook's header did
    (else the extracted plan's label would state a price it no longer uses); the Adjustments rows edited."""
    _with_adjustments(data, rows)
    for index, text in labels.items():
        data["markets"][index]["label"] = text


def _relabelled(book: OpenedWorkbook, values: dict[tuple, Num]) -> dict[int, str]:
    """{market index: its new label} of the labels that cite an edited price."""
    bases = {path: num.base for path, num in values.items()}
    return {label.index: text for label in market_labels(book.plan, input_cells(book.plan))
            if label.live and (text := label_text(label, bases)) != label.market.label}
