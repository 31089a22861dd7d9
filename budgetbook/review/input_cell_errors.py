"""A plan the workbook's inputs make that does not load, named by the cell a user typed into.

Each input alone is held to its hard bounds where it is read (`readback`, `scenario`); a rule
across inputs (hours that deliver more FLOPs than the GPUs' peak) is the plan loader's, which
names a key path (`workloads[0].allocated_gpu_hours`). A user edited a cell, not a key: this
turns the loader's line into an `invalid_input` finding at that cell (`check`), or a line
starting with `Inputs!C15 (name)` (`extract`, `diff`).
"""

from __future__ import annotations

import re

from ..errors import PlanError, WorkbookError
from ..plan.inputs import InputCell
from .findings import Finding
from .readback import OpenedWorkbook

_KEY = re.compile(r"^`([^`]+)`")


def cell_of(book: OpenedWorkbook, cells: list[InputCell], reason: str) -> tuple[InputCell, str, str] | None:
    """The input cell (and its sheet, cell) whose key path a loader's reason starts with, if it is on the sheet."""
    match = _KEY.match(reason)
    if match is None:
        return None
    key = match.group(1)
    for cell in cells:
        if cell.key_path == key and (where := book.locate(cell.name)) is not None:
            return cell, where[0], where[1]
    return None


def as_finding(book: OpenedWorkbook, cells: list[InputCell], exc: PlanError) -> Finding:
    """An `invalid_input` finding for a plan the inputs make that does not load, at its cell where one is named."""
    found = cell_of(book, cells, exc.reason)
    if found is None:
        return Finding("invalid_input", f"the inputs make a plan that does not load: {exc.reason}")
    cell, sheet, ref = found
    return Finding("invalid_input", f"{cell.label}: {_KEY.sub('', exc.reason).lstrip(': ')}", sheet, ref, cell.name)


def as_workbook_error(book: OpenedWorkbook, cells: list[InputCell], exc: PlanError) -> WorkbookError:
    """The same as one line naming the workbook and the cell (`extract`, `diff`)."""
    finding = as_finding(book, cells, exc)
    where = f"{finding.where}: " if finding.sheet else ""
    return WorkbookError(f"{where}{finding.message}", source=str(book.path))
