"""Outputs written atomically: a temporary file beside the target, renamed into place.

A crash or a full disk then leaves the old file (or none), never half a file,
and the rename is atomic on one filesystem, which is why the temporary file
lives in the target's own directory rather than in /tmp.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def refuse_overwrite(path: Path, force: bool) -> None:
    if path.is_dir():
        raise OutputError("is a directory; give a file name", source=str(path))
    if path.exists() and not force:
        raise OutputError("already exists; pass --force to overwrite it", source=str(path))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(f"no such directory `{directory}`", source=str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"cannot write here: {exc.strerror}", source=str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write: {exc.strerror}", source=str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))
