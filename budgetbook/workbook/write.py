"""Write a plan's workbook to disk, atomically (`atomic.atomic_write`: no half file is ever left)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from ..atomic import PathLike, atomic_write
from ..plan.model import Plan
from .build import build_workbook
from .cached import save_with_values
from .protect import protect_sheets


def write_workbook(plan: Plan, plan_text: str, out: PathLike, today: dt.date | None = None, *,
                   protect: Iterable[PathLike] = (), lock_sheets: bool = False,
                   password: str | None = None) -> Path:
    """Build the workbook and write it to `out`, every formula with its value cached (`cached`);
    `protect` lists inputs it must never replace; `lock_sheets` protects every sheet, inputs
    unlocked (`protect.protect_sheets`), with `password` if given."""
    wb = build_workbook(plan, plan_text, today)
    if lock_sheets or password:
        protect_sheets(wb, password)
    package = save_with_values(wb)
    return atomic_write(out, lambda tmp: Path(tmp).write_bytes(package), protect=protect)
