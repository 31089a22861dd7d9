"""Where a picture is asked for: the charts module, or one line naming the extra that draws them; and the file.

matplotlib is an optional extra (`plots`): a plain install has no use for 40 MB of plotting. A
command asked for a picture without it stops with one line naming the extra (exit 2), before any
work; the picture is written atomically, never over the command's input, and only as SVG or PNG.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from ..atomic import PathLike, check_destination
from ..errors import UsageError

EXTRA = "pip install 'budgetbook[plots]'"


def plotting() -> ModuleType:
    """`output.charts`, or a `UsageError` naming the `plots` extra when matplotlib is not installed."""
    try:
        from . import charts  # matplotlib: heavy, and an optional extra
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "matplotlib":
            raise
        raise UsageError(f"pictures need matplotlib, the `plots` extra: {EXTRA}") from None
    return charts


def picture_format(path: PathLike, option: str) -> str:
    """`svg` or `png`, from the file's suffix; else a usage error naming the option."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in ("svg", "png"):
        raise UsageError(f"`{option} {path}`: expected a file ending in .png or .svg")
    return suffix


def checked_picture(path: PathLike | None, option: str, protect: Iterable[PathLike] = ()) -> tuple[str, ModuleType]:
    """Before the work: the picture's format and the charts module (both refusals are one line, exit 2)."""
    fmt = picture_format(path, option) if path is not None else "svg"
    if path is not None:
        check_destination(path, protect=protect)
    return fmt, plotting()
