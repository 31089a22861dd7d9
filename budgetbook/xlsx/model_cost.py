"""What the ExcelModel fallback would build, counted before it is built.

`formulas.ExcelModel` compiles every cell of every sheet's used range (openpyxl's
`iter_rows` creates the empty ones too) and, for each range a formula or a
defined name reads, a set of every cell position in it: one `=COUNTBLANK(A:A)`
is 1,048,576 positions, ~850 MB. The fast evaluator handles what budgetbook
writes and cuts whole columns given to a function that ignores blanks to the
used rows; whatever still falls back is weighed here first, and refused with
one line naming the cell and the limit when it is too heavy.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import WorkbookError
from .a1 import get_column_letter
from .cell_grid import MAX_COL, MAX_ROW, col_index
from .limits import DEFAULT_LIMITS, Limits
from .shapes import BLANK_BLIND_FUNCTIONS
from .tokenizer import Tokenizer

_BLIND = ", ".join(sorted(BLANK_BLIND_FUNCTIONS))
_ADDRESS = re.compile(r"^(?:.*!)?\$?([A-Za-z]{0,3})\$?([0-9]{0,7})(?::\$?([A-Za-z]{0,3})\$?([0-9]{0,7}))?$")


def refuse_costly_model(workbook: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise a `WorkbookError` (no file named: the caller knows it) when ExcelModel would build too much."""
    budget = limits.max_model_cells
    total = 0
    for ws in workbook.worksheets:
        used = ws.max_row * ws.max_column if ws._cells else 0
        total += used
        if total > budget:
            raise WorkbookError(f"sheet `{ws.title}` has a used range of {used:,} cells (A1:{_last(ws)}): the "
                                f"formula evaluator's fallback would build over {budget:,} cells; delete the "
                                "unused rows and columns")
    seen: set[tuple] = set()
    for where, text in _range_texts(workbook):
        for ref in _ranges(text):
            area = _area(ref)
            if area is None or area[0] in seen:
                continue
            seen.add(area[0])
            total += area[1]
            if total > budget:
                raise WorkbookError(f"{where} reads `{ref}`, {area[1]:,} cells, in a way the fast evaluator "
                                    f"cannot cut to the used rows (whole columns only straight into {_BLIND}); "
                                    f"evaluating it would build over {budget:,} cells: refer to the used cells "
                                    "instead (such as `A1:A100`)")


def _last(ws: Any) -> str:
    return f"{get_column_letter(ws.max_column)}{ws.max_row}"


def _range_texts(workbook: Any):
    """(where, formula or name text) for every formula cell and defined name that holds a `:` range."""
    for name, defined in workbook.defined_names.items():
        text = defined.attr_text or ""
        if ":" in text:
            yield f"the defined name `{name}`", "=" + text
    for ws in workbook.worksheets:
        for cell in ws._cells.values():
            value = getattr(cell.value, "text", cell.value)
            if cell.data_type == "f" and isinstance(value, str) and ":" in value:
                yield f"the formula in {ws.title}!{cell.coordinate}", value


def _ranges(formula: str) -> list[str]:
    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001  a formula the tokenizer cannot read: ExcelModel reports it
        return []
    return [t.value for t in tokens if t.type == "OPERAND" and t.subtype == "RANGE" and ":" in t.value]


def _area(ref: str) -> tuple[tuple, int] | None:
    """(a key for the range, its cell count) of `A1:B9`, `A:A`, `3:5` (sheet-qualified or not); None if not one."""
    m = _ADDRESS.match(ref)
    if m is None or m.group(3) is None:
        return None
    sheet = ref.rpartition("!")[0].upper()
    c1, r1, c2, r2 = m.groups()
    cols = (col_index(c1) if c1 else 1, col_index(c2) if c2 else MAX_COL)
    rows = (int(r1) if r1 else 1, int(r2) if r2 else MAX_ROW)
    if bool(c1) != bool(c2) or bool(r1) != bool(r2):
        return None
    width = abs(cols[1] - cols[0]) + 1
    height = abs(rows[1] - rows[0]) + 1
    return (sheet, *cols, *rows), width * height
