"""Write outputs atomically: a temporary file beside the target, renamed into place.

A reader (or a crashed run) sees either the old file or the complete new one,
never half a workbook. The temporary file lives in the target's own directory
because `os.replace` is only atomic within one file system.

Libraries write scratch files of their own in the temporary folder (openpyxl one per sheet, in
`TMPDIR`): a failure there (the folder full, or no usable temporary folder at all) is named as the
temporary folder's, not blamed on the output, which may have had room (`temp_folder_error`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import OutputError

PathLike = str | os.PathLike


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        # samefile needs both to exist; a not-yet-created path can still name the input
        return a.resolve() == b.resolve()


_SPECIAL = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
            (stat.S_ISSOCK, "a socket"))


def _special_kind(dest: Path) -> str | None:
    """What `dest` is when it exists but is neither a regular file nor a directory (links followed)."""
    try:
        mode = dest.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((kind for test, kind in _SPECIAL if test(mode)), "not a regular file")


def check_destination(path: PathLike, *, protect: Iterable[PathLike] = (), force: bool = True) -> Path:
    """Refuse an output that must not be written, each with one line naming it (`OutputError`).

    Never an input of the command (`protect`, compared by file identity: a
    symlink, a hard link or `./x/../` spelling of an input is caught too), with
    or without `force`; never `-` (standard output, for the commands that write
    there); never a directory, a device, FIFO or socket, or a file
    in a missing folder; an existing file only with `force`.
    """
    dest = Path(path)
    if str(path) == "-":  # a command with a default of standard output takes `-o -` for it before this
        raise OutputError("is not a file name: this command writes a file, not standard output; give the "
                          "name of the file to write", source="-")
    for guarded in protect:
        if _same_file(dest, Path(guarded)):
            raise OutputError(f"refusing to write: it would overwrite the input file {guarded}",
                              source=str(dest))
    if dest.is_dir():
        raise OutputError("is a directory; give a file name to write", source=str(dest))
    kind = _special_kind(dest)
    if kind is not None:
        raise OutputError(f"is {kind}, not a regular file; refusing to replace it", source=str(dest))
    parent = dest.parent
    if not parent.exists():
        raise OutputError(f"cannot write: directory {parent} does not exist", source=str(dest))
    if not parent.is_dir():
        raise OutputError(f"cannot write: {parent} is not a directory", source=str(dest))
    if not force and dest.exists():
        raise OutputError("already exists; pass --force to overwrite it", source=str(dest))
    return dest


def _final_mode(dest: Path) -> int:
    # mkstemp makes 0600 files; the output should look like any file the user writes
    try:
        return stat.S_IMODE(dest.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def describe_os_error(exc: OSError) -> str:
    """An OSError in a few words for a one-line message."""
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device"
    if exc.errno == errno.EPIPE:
        return "the reader closed the pipe"
    return exc.strerror or type(exc).__name__


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT wait until the block ends (main thread; elsewhere nothing to hold)."""
    held = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def atomic_output(path: PathLike, *, protect: Iterable[PathLike] = ()) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces `path`, on any error it vanishes.

    The destination is checked first (`check_destination`): `protect` lists the
    input files the output must never replace.
    """
    dest = check_destination(path, protect=protect)
    tmp: Path | None = None
    try:
        # The name is chosen before the file is made, so a stop at any moment after it (even one a
        # thread of another library takes, which no signal mask holds back) finds it to remove. (os.urandom is
        # what secrets.token_hex reads, without loading hashlib and hmac at start-up.)
        for _ in range(_TRIES):
            name = dest.parent / f".{dest.name}.{os.urandom(6).hex()}.tmp"
            tmp = name
            try:
                _create(name)
                break
            except FileExistsError:
                tmp = None  # somebody else's: never ours to remove
            except OSError as exc:  # nothing made: the `finally` has no file to remove (on a read-only file
                tmp = None           # system, unlinking the name would fail with EROFS, not "no such file")
                raise OutputError(f"cannot write in {os.path.abspath(dest.parent)}: {describe_os_error(exc)}",
                                  source=str(dest)) from None
        else:
            raise OutputError(f"cannot write in {dest.parent}: no free temporary name", source=str(dest))
        yield name
        with open(name, "rb+") as written:
            os.fsync(written.fileno())  # the rename must not land before the data does
        os.chmod(name, _final_mode(dest))
        os.replace(name, dest)
    except OSError as exc:
        raise OutputError(f"cannot write: {describe_os_error(exc)}", source=str(dest)) from None
    finally:
        if tmp is not None:
            with _signals_held(), contextlib.suppress(FileNotFoundError):  # a second stop waits for the removal
                tmp.unlink()


_TRIES = 100  # names drawn before giving up (48 random bits each: a clash is already unheard of)


def _create(path: Path) -> None:
    """Make `path`, empty, private (0600, as mkstemp would), failing if it exists."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600))


def atomic_write(path: PathLike, writer: Callable[[Path], object], *,
                 protect: Iterable[PathLike] = ()) -> Path:
    """Call `writer(tmp_path)` (e.g. `workbook.save`) and move the result to `path` atomically."""
    with atomic_output(path, protect=protect) as tmp:
        writer(tmp)
    return Path(path)


def write_text_atomic(path: PathLike, text: str, *, protect: Iterable[PathLike] = (),
                      encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically (newlines written as given)."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding=encoding, newline=""),
                        protect=protect)


def write_bytes_atomic(path: PathLike, data: bytes, *, protect: Iterable[PathLike] = ()) -> Path:
    """Write `data` to `path` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_bytes(data), protect=protect)


def scratch_files() -> frozenset[str]:
    """The scratch files openpyxl has made and not yet removed (it removes them only at exit after a failure)."""
    return frozenset(getattr(sys.modules.get("openpyxl.worksheet._writer"), "ALL_TEMP_FILES", None) or ())


def temp_folder_error(exc: OSError, before: frozenset[str] = frozenset()) -> OutputError:
    """One line naming the temporary folder, for `exc` raised by a library writing its scratch files there
    (a save into memory: nothing else can fail); the scratch files made since `before` are removed, and the
    library's suspended writers closed."""
    _release_quietly(exc, before)
    try:
        folder = tempfile.gettempdir()
    except OSError:  # none usable at all: name the one the user set, or the system's
        given = os.environ.get("TMPDIR")
        where = f"{given} (TMPDIR)" if given else "/tmp (the temporary folder)"  # noqa: S108 - only named
        return OutputError("cannot write temporary files: no usable temporary folder (it and the system's are "
                           "missing or read-only); set TMPDIR to a writable folder", source=where)
    return OutputError(f"cannot write a temporary file: {describe_os_error(exc)}; free space there or set TMPDIR "
                       "to a folder with room", source=f"{folder} (the temporary folder)")


def _release_quietly(exc: BaseException, before: frozenset[str]) -> None:
    """Drop the frames of a failed library write now, and its scratch files.

    openpyxl's sheet writer is a suspended generator holding its scratch file: finalized later, it tries
    to write again and prints "Exception ignored ..." with a traceback; here its frames are cleared while
    such reports are silenced, and the scratch files it made (removed only at exit) are removed.
    """
    import gc
    import traceback

    hook = sys.unraisablehook
    sys.unraisablehook = lambda _report: None
    try:
        traceback.clear_frames(exc.__traceback__)
        gc.collect()
    finally:
        sys.unraisablehook = hook
    listed = getattr(sys.modules.get("openpyxl.worksheet._writer"), "ALL_TEMP_FILES", None) or []
    for path in sorted(scratch_files() - before):
        with contextlib.suppress(OSError):
            os.remove(path)
            listed.remove(path)
