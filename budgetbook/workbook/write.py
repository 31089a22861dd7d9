"""Write a plan's workbook to disk, atomically (`atomic.atomic_write`: no half file is ever left)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from ..atomic import PathLike, atomic_write
from ..plan.model import Plan
from .build import build_workbook
from .cached import save_with_values


def write_workbook(plan: Plan, plan_text: str, out: PathLike, today: dt.date | None = None, *,
                   protect: Iterable[PathLike] = (), password: str | None = None) -> Path:
    """Build the workbook and write it to `out`, every formula with its value cached (`cached`);
    `protect` lists inputs it must never replace; `password`: the sheets' protection password
    (they are protected, inputs unlocked, without one by default)."""
    wb = build_workbook(plan, plan_text, today, password=password)
    package = save_with_values(wb)
    return atomic_write(out, lambda tmp: Path(tmp).write_bytes(package), protect=protect)
