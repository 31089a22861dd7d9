"""Never lose a user's edits: `generate` replaces only a workbook that nobody has touched.

Reading the edits takes a fraction of a check: typed inputs and formula text
are what hand-tuning changes, so the workbook is not evaluated (unless an input
itself holds a formula).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BudgetbookError, OutputError
from ..plan.inputs import input_cells
from .audit import formula_edits
from .findings import Finding
from .readback import evaluate_formula_inputs, open_book, read_inputs


def edits_since_generated(path: Path) -> list[Finding]:
    """What a user changed in a generated workbook: inputs (`input_changed`, ...) and formula cells."""
    book = open_book(path)
    cells = input_cells(book.plan)
    baseline = {c.name: c.num for c in cells}
    _, input_findings = read_inputs(book, cells, evaluate_formula_inputs(book, cells), baseline)
    return input_findings + formula_edits(book)


def ensure_replaceable(out: Path) -> None:
    """Refuse to write over a workbook edited since it was generated, or over a foreign file.

    The caller has already refused what must never be written (an input, a
    directory, a device: `atomic.check_destination`).
    """
    if not out.exists():
        return
    try:
        edits = edits_since_generated(out)
    except BudgetbookError as exc:
        raise OutputError(f"exists and is not a budgetbook workbook we can read ({exc.reason}); "
                          "move it away or pass --force to replace it", source=str(out)) from None
    if edits:
        first = edits[0]
        more = f" and {len(edits) - 1} more change(s)" if len(edits) > 1 else ""
        raise OutputError(f"was edited since it was generated ({first.where or first.name}: {first.message}{more}); "
                          f"run `budgetbook extract {out} -o plan.yaml` first to keep the edits, "
                          "or pass --force to replace it", source=str(out))
