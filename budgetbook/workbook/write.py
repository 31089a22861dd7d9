"""Write a plan's workbook to disk, atomically (`atomic.atomic_write`: no half file is ever left)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..atomic import PathLike, atomic_write
from ..plan.model import Plan
from .build import build_workbook
from .cached import save_with_values


def write_workbook(plan: Plan, plan_text: str, out: PathLike, today: dt.date | None = None, *,
                   protect: Iterable[PathLike] = (), password: str | None = None) -> Path:
    """Build the workbook and write it to `out`, every formula with its value cached (`cached`);
    `protect` lists inputs it must never replace; `password`: the sheets' protection password
    (they are protected, inputs unlocked, without one by default)."""
    return save_workbook(build_workbook(plan, plan_text, today, password=password), out, protect=protect)


def save_workbook(wb: Any, out: PathLike, *, protect: Iterable[PathLike] = ()) -> Path:
    """Save the openpyxl workbook `wb` to `out` atomically, every formula with its value cached. The values
    are computed while the temporary file exists, so a stop meanwhile removes it and leaves `out` as it was."""
    return atomic_write(out, lambda tmp: Path(tmp).write_bytes(save_with_values(wb)), protect=protect)
