"""Write a plan's workbook to disk, atomically."""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

from ..errors import OutputError
from ..plan.model import Plan
from .build import build_workbook


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
