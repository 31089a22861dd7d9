"""Write a plan's workbook to disk, atomically (`atomic.atomic_write`: no half file is ever left)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import PathLike, atomic_write
from ..plan.model import Plan
from ..progress import stage
from ..sheetkit.grid import Blueprint
from .build import build_streamed
from .cached import saved_with_values, streamed_with_values
from .checks import MASTER_CHECK

if TYPE_CHECKING:  # writing loads openpyxl, importing this module does not
    from openpyxl import Workbook

    from .streamed import StreamedBook


@dataclass(frozen=True)
class Written:
    """What `generate` wrote: the file, its sheets, how many formula cells, and the master check's value."""

    path: Path
    sheets: list[str]       # the visible ones
    formula_cells: int
    checks_ok: bool | None  # the Checks sheet's `checks_ok` as computed on writing (None: not computed)


def write_workbook(plan: Plan, plan_text: str, out: PathLike, today: dt.date | None = None, *,
                   protect: Iterable[PathLike] = (), password: str | None = None) -> Path:
    """Build the workbook and write it to `out`, every formula with its value cached (`cached`);
    `protect` lists inputs it must never replace; `password`: the sheets' protection password
    (they are protected, inputs unlocked, without one by default)."""
    return write_workbook_saying(plan, plan_text, out, today, protect=protect, password=password).path


def write_workbook_saying(plan: Plan, plan_text: str, out: PathLike, today: dt.date | None = None, *,
                          protect: Iterable[PathLike] = (), password: str | None = None,
                          laid_out: list[Blueprint] | None = None) -> Written:
    """`write_workbook`, saying what it wrote (`Written`); `laid_out`: a list holding the plan already built
    (`build_book`), taken out of it: once rendered nothing holds the layout while the book is saved and its
    values computed (`generate` at 45,000 formula cells peaked at 236 MiB with it held, 205 without)."""
    stage("building the workbook")
    blueprint = laid_out.pop() if laid_out else None
    book = build_streamed(plan, plan_text, today, password=password, blueprint=blueprint)
    del blueprint  # the book holds none of it (its cells are taken as stored): the layout goes
    return save_built(book, out, protect=protect)


def save_built(book: StreamedBook | Workbook, out: PathLike, *, protect: Iterable[PathLike] = ()) -> Written:
    """`save_workbook_saying` of what `build.build_streamed` built: a `streamed.StreamedBook`, written without
    openpyxl's cells, or an openpyxl workbook."""
    from .streamed import StreamedBook  # on writing, not at import: loads openpyxl (~0.3 s)

    if not isinstance(book, StreamedBook):
        return save_workbook_saying(book, out, protect=protect)
    return _saved_saying(book.wb, out, protect, lambda: streamed_with_values(book),
                         lambda: book.formula_cells + _formula_cells(book.wb), book.names.get(MASTER_CHECK))


def save_workbook(wb: Any, out: PathLike, *, protect: Iterable[PathLike] = ()) -> Path:
    """Save the openpyxl workbook `wb` to `out` atomically, every formula with its value cached. The values
    are computed while the temporary file exists, so a stop meanwhile removes it and leaves `out` as it was."""
    return save_workbook_saying(wb, out, protect=protect).path


def save_workbook_saying(wb: Any, out: PathLike, *, protect: Iterable[PathLike] = ()) -> Written:
    """`save_workbook`, saying what it wrote (`Written`)."""
    master = wb.defined_names.get(MASTER_CHECK)
    return _saved_saying(wb, out, protect, lambda: saved_with_values(wb), lambda: _formula_cells(wb),
                         master.attr_text if master is not None else None)


def _formula_cells(wb: Any) -> int:
    # the cells held, not `iter_rows` (which makes a blank cell at every empty address of each sheet's rectangle)
    return sum(1 for ws in wb.worksheets for cell in ws._cells.values() if cell.data_type == "f")


def _saved_saying(wb: Any, out: PathLike, protect: Iterable[PathLike],
                  saved: Callable[[], tuple[bytes, dict[tuple[str, int, int], Any] | None]],
                  formula_cells: Callable[[], int], master: str | None) -> Written:
    """Write `saved()` (the package and its cached values) to `out` atomically, and say what was written;
    `master`: the reference of the master check's cell (`checks_ok`), where the book has one."""
    found: dict[str, Any] = {}

    def write(tmp: Path) -> None:
        data, found["values"] = saved()
        stage("writing", len(data), "bytes")
        Path(tmp).write_bytes(data)

    path = atomic_write(out, write, protect=protect)
    values = found.get("values")
    checks_ok = None
    if values is not None and master is not None:
        from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
        from openpyxl.workbook.defined_name import DefinedName

        for sheet, ref in DefinedName(MASTER_CHECK, attr_text=master).destinations:
            letters, row = coordinate_from_string(ref.replace("$", ""))
            value = values.get((sheet.upper(), row, column_index_from_string(letters)))
            checks_ok = None if value is None else bool(value)
    visible = [ws.title for ws in wb.worksheets if ws.sheet_state == "visible"]
    return Written(path, visible, formula_cells(), checks_ok)
