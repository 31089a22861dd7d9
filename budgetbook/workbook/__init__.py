"""The workbook builder: a plan as an Excel workbook of live formulas (DESIGN.md section 5).

`build_workbook` / `write_workbook` make the .xlsx; `workbook_layout` lists
every named cell as generated (`CellSpec`), which `check` compares an edited
workbook against; `read_embedded_plan` gets back the plan a workbook came from.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

from openpyxl import Workbook

from ..errors import OutputError
from ..plan.model import Plan
from .about import build_about
from .checks import build_checks
from ..lineitems.compute import build_compute
from .embed import FORMAT_VERSION, SHEET as EMBED_SHEET, read_embedded_plan
from ..lineitems.failed_runs import build_failed_runs
from .grid import KINDS, Book, CellSpec
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

__all__ = ["build_workbook", "write_workbook", "workbook_layout", "read_embedded_plan", "CellSpec", "KINDS",
           "FORMAT_VERSION", "EMBED_SHEET"]


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


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_workbook(plan: Plan, plan_text: str, out: Path, today: dt.date | None = None) -> Path:
    """Write atomically: a temporary file beside `out`, renamed into place, so no half file is left."""
    out = Path(out)
    wb = build_workbook(plan, plan_text, today)
    directory = out.parent if str(out.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"{out}: directory `{directory}` does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"{out}: cannot write here ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            wb.save(handle)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the workbook is an ordinary file
        os.replace(tmp, out)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{out}: cannot write ({exc.strerror})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
