"""LibreOffice Calc as an independent oracle for tests (DESIGN.md section 6).

Two ways in:

- `recalculate(xlsx, out_dir)`: a headless `--convert-to xlsx` that always
  recalculates, so the output's cached values are LibreOffice's own results;
- `uno_edit(xlsx, out, ops)` / `uno_session()`: act on a workbook the way a
  user does (insert rows, type values and formulas, delete sheets) through
  UNO, then recalculate and save as xlsx.

Every LibreOffice process gets a private profile: a shared user profile would
make `--convert-to` hand the job to whatever instance is already running (and
ignore our recalculation settings), and two concurrent instances on one
profile lock each other out.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
# Debian's python3-uno is built for the system interpreter only.
SYSTEM_PYTHON = "/usr/bin/python3"
UNO_DRIVER = Path(__file__).with_name("uno_driver.py")

# First start of a fresh profile takes several seconds (profile creation);
# a loaded CI box with four engineers on two cores can be far slower.
CONVERT_TIMEOUT = float(os.environ.get("BUDGETBOOK_SOFFICE_TIMEOUT", "180"))
UNO_TIMEOUT = CONVERT_TIMEOUT

ERROR_PREFIXES = ("#", "Err:")
ERROR_VALUES = frozenset(
    {"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA"}
)

_RECALC_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


class LibreOfficeError(RuntimeError):
    """LibreOffice failed, timed out or produced no output."""


def soffice_available() -> bool:
    return SOFFICE is not None


def uno_available() -> bool:
    if not soffice_available() or not Path(SYSTEM_PYTHON).exists():
        return False
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import uno"], capture_output=True, timeout=60
    )
    return probe.returncode == 0


needs_libreoffice = pytest.mark.skipif(
    not soffice_available(),
    reason="LibreOffice (soffice) is not installed: apt-get install -y libreoffice-calc",
)
needs_uno = pytest.mark.skipif(
    not uno_available(),
    reason="LibreOffice UNO is not usable: needs soffice and python3-uno for /usr/bin/python3",
)


# --- private profiles -------------------------------------------------------

_session_root: Path | None = None
_profile_lock = threading.Lock()


def _root() -> Path:
    global _session_root
    if _session_root is None:
        _session_root = Path(tempfile.mkdtemp(prefix="budgetbook-lo-"))
        atexit.register(shutil.rmtree, _session_root, True)
    return _session_root


def make_profile(directory: Path) -> Path:
    """A LibreOffice user installation whose Calc always recalculates on load."""
    user = directory / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(_RECALC_XCU, encoding="utf-8")
    return directory


def _profile_url(directory: Path) -> str:
    return directory.resolve().as_uri()


def _convert_profile() -> Path:
    """The session's one conversion profile: reused, because its first start is slow."""
    profile = _root() / "convert-profile"
    if not (profile / "user" / "registrymodifications.xcu").exists():
        make_profile(profile)
    return profile


def _require_soffice() -> str:
    if SOFFICE is None:
        raise LibreOfficeError("soffice not found on PATH (apt-get install -y libreoffice-calc)")
    return SOFFICE


# --- recalculation round trip -----------------------------------------------


def recalculate(xlsx: Path, out_dir: Path) -> Path:
    """Open `xlsx` in headless LibreOffice, recalculate everything, save as xlsx in `out_dir`.

    Returns the path of the written file (`out_dir / xlsx.name`, with .xlsx suffix).
    """
    soffice = _require_soffice()
    xlsx = Path(xlsx).resolve()
    out_dir = Path(out_dir).resolve()
    if not xlsx.is_file():
        raise LibreOfficeError(f"{xlsx}: no such workbook")
    if out_dir == xlsx.parent:
        # --convert-to would overwrite the input in place.
        raise LibreOfficeError(f"{out_dir}: out_dir must differ from the input's directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / (xlsx.stem + ".xlsx")
    if out.exists():
        out.unlink()
    # Calls share one profile; LibreOffice refuses a second instance on it.
    with _profile_lock:
        cmd = [
            soffice,
            "--headless",
            "--norestore",
            "--nologo",
            f"-env:UserInstallation={_profile_url(_convert_profile())}",
            "--convert-to",
            "xlsx:Calc MS Excel 2007 XML",
            "--outdir",
            str(out_dir),
            str(xlsx),
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=CONVERT_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise LibreOfficeError(
                f"soffice --convert-to timed out after {CONVERT_TIMEOUT:.0f}s on {xlsx}"
            ) from exc
    if done.returncode != 0 or not out.is_file():
        raise LibreOfficeError(
            f"soffice --convert-to failed on {xlsx} (exit {done.returncode}); "
            f"stdout: {done.stdout.strip()!r}; stderr: {done.stderr.strip()!r}"
        )
    return out


def recalculate_many(books: list[Path], out_dir: Path) -> list[Path]:
    """`recalculate` for several workbooks in one LibreOffice start (each start costs seconds).

    The books must have distinct file names; `out_dir` must differ from each book's directory.
    """
    soffice = _require_soffice()
    books = [Path(b).resolve() for b in books]
    out_dir = Path(out_dir).resolve()
    if len({b.stem for b in books}) != len(books) or any(b.parent == out_dir for b in books):
        raise LibreOfficeError("recalculate_many: distinct names, and an out_dir apart from the inputs")
    out_dir.mkdir(parents=True, exist_ok=True)
    outs = [out_dir / (b.stem + ".xlsx") for b in books]
    for out in outs:
        out.unlink(missing_ok=True)
    with _profile_lock:
        cmd = [soffice, "--headless", "--norestore", "--nologo",
               f"-env:UserInstallation={_profile_url(_convert_profile())}",
               "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir), *map(str, books)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=CONVERT_TIMEOUT * len(books))
        except subprocess.TimeoutExpired as exc:
            raise LibreOfficeError(f"soffice --convert-to timed out on {len(books)} books") from exc
    missing = [str(out) for out in outs if not out.is_file()]
    if done.returncode != 0 or missing:
        raise LibreOfficeError(f"soffice --convert-to failed (exit {done.returncode}), missing {missing}; "
                               f"stderr: {done.stderr.strip()!r}")
    return outs


# --- reading results ----------------------------------------------------------


def _range_values(ws, ref: str) -> Any:
    cells = ws[ref]
    if not isinstance(cells, tuple):
        return cells.value
    rows = cells if isinstance(cells[0], tuple) else (cells,)
    return tuple(c.value for row in rows for c in row)


def cell_values(xlsx: Path) -> dict[str, Any]:
    """Cached value of every workbook-scoped defined name: name -> value.

    A single-cell name maps to its value, a range to a row-major tuple. Names
    whose target is gone (`#REF!`) map to the string "#REF!".
    """
    import openpyxl

    wb = openpyxl.load_workbook(xlsx, data_only=True)
    values: dict[str, Any] = {}
    try:
        for name, dn in wb.defined_names.items():
            if dn.localSheetId is not None:
                continue
            if "#REF!" in (dn.attr_text or ""):
                values[name] = "#REF!"
                continue
            found = list(dn.destinations)
            if len(found) != 1:
                values[name] = None
                continue
            sheet, ref = found[0]
            if sheet not in wb.sheetnames:
                values[name] = "#REF!"
                continue
            values[name] = _range_values(wb[sheet], ref.replace("$", ""))
    finally:
        wb.close()
    return values


def recalculated_values(xlsx: Path, out_dir: Path) -> dict[str, Any]:
    """LibreOffice's value of every defined name in `xlsx`: recalculate, then read."""
    return cell_values(recalculate(xlsx, out_dir))


def is_error_value(value: Any) -> bool:
    return isinstance(value, str) and (value in ERROR_VALUES or value.startswith("Err:"))


def error_cells(xlsx: Path) -> list[tuple[str, str, str]]:
    """Every cell whose cached value is a spreadsheet error: (sheet, coordinate, error).

    LibreOffice's own errors (`Err:502` from `SQRT(-1)`, `Err:504`, ...) reach
    an xlsx as `#VALUE!`: Calc has no other way to store them in OOXML, so an
    `Err:` string only shows up in files written by other tools.
    """
    import openpyxl

    wb = openpyxl.load_workbook(xlsx, data_only=True)
    found = []
    try:
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if is_error_value(cell.value):
                        found.append((ws.title, cell.coordinate, cell.value))
    finally:
        wb.close()
    return found


def formulas_of(xlsx: Path) -> dict[tuple[str, str], str]:
    """Formula text of every formula cell, as openpyxl reads it: (sheet, coordinate) -> text."""
    import openpyxl

    wb = openpyxl.load_workbook(xlsx)
    found = {}
    try:
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if cell.data_type == "f":
                        # Array formulas come back as objects holding the text.
                        text = getattr(cell.value, "text", cell.value)
                        found[(ws.title, cell.coordinate)] = str(text)
    finally:
        wb.close()
    return found


# --- UNO ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LibreOfficeError(f"soffice exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise LibreOfficeError(f"soffice did not listen on 127.0.0.1:{port} within {UNO_TIMEOUT:.0f}s")


class UnoSession:
    """One headless LibreOffice listening on a private port, edited through UNO."""

    def __init__(self) -> None:
        self.proc, self.port, self.profile = _start_listening()

    def edit(self, xlsx: Path, out: Path, ops: list[dict]) -> Path:
        """Open `xlsx`, apply `ops`, calculateAll(), store as xlsx at `out`.

        LibreOffice 7.4 under load on two cores sometimes crashes mid-edit (the UNO driver dies of a
        signal, seen in CI as exit -11); that is the oracle failing, not the workbook, so the edit is
        retried once on a fresh LibreOffice. A driver that reports an error still fails at once.
        """
        xlsx = Path(xlsx).resolve()
        out = Path(out).resolve()
        if not xlsx.is_file():
            raise LibreOfficeError(f"{xlsx}: no such workbook")
        out.parent.mkdir(parents=True, exist_ok=True)
        done = self._run_driver(xlsx, out, ops)
        if done.returncode < 0:
            self.close()
            self.proc, self.port, self.profile = _start_listening()
            done = self._run_driver(xlsx, out, ops)
        if done.returncode != 0 or not out.is_file():
            raise LibreOfficeError(
                f"UNO edit of {xlsx} failed (exit {done.returncode}): {done.stderr.strip()}"
            )
        return out

    def _run_driver(self, xlsx: Path, out: Path, ops: list[dict]) -> subprocess.CompletedProcess:
        job = {"port": self.port, "input": xlsx.as_uri(), "output": out.as_uri(), "ops": ops}
        try:
            return subprocess.run(
                [SYSTEM_PYTHON, str(UNO_DRIVER)],
                input=json.dumps(job),
                capture_output=True,
                text=True,
                timeout=UNO_TIMEOUT,
            )
        except subprocess.TimeoutExpired as exc:
            raise LibreOfficeError(f"UNO edit of {xlsx} timed out after {UNO_TIMEOUT:.0f}s") from exc

    def close(self) -> None:
        _kill_group(self.proc)
        shutil.rmtree(self.profile, ignore_errors=True)


def _start_listening() -> tuple[subprocess.Popen, int, Path]:
    """A listening soffice with its own profile: (process, port, profile)."""
    soffice = _require_soffice()
    port = _free_port()
    profile = make_profile(Path(tempfile.mkdtemp(prefix="uno-profile-", dir=_root())))
    proc = subprocess.Popen(
        [
            soffice,
            "--headless",
            "--norestore",
            "--nologo",
            "--nodefault",
            f"-env:UserInstallation={_profile_url(profile)}",
            f"--accept=socket,host=127.0.0.1,port={port};urp;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # Own process group: soffice forks oosplash -> soffice.bin; kill them all.
        start_new_session=True,
    )
    try:
        _wait_for_port(port, proc, time.monotonic() + UNO_TIMEOUT)
    except BaseException:
        _kill_group(proc)
        shutil.rmtree(profile, ignore_errors=True)
        raise
    return proc, port, profile


@contextmanager
def uno_session() -> Iterator[UnoSession]:
    """Start a listening soffice with its own profile; always kill it on exit."""
    session = UnoSession()
    try:
        yield session
    finally:
        session.close()


def _kill_group(proc: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def uno_edit(xlsx: Path, out: Path, ops: list[dict]) -> Path:
    """One-shot: start LibreOffice, apply `ops` to `xlsx`, save to `out`, stop LibreOffice."""
    with uno_session() as session:
        return session.edit(xlsx, out, ops)
