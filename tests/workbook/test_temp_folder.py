"""A full or unusable temporary folder (issue 27 item 4): one line naming it, exit 2, no traceback, no file left.

openpyxl writes a scratch file per sheet in the temporary folder (`TMPDIR`) while budgetbook saves a
workbook into memory; a failure there used to print openpyxl's traceback and blame the output file,
which had room. Each case runs the real CLI in a private mount namespace (`unshare -m`, as root): a
64 KB tmpfs nearly full as `TMPDIR`, or every folder Python's `tempfile` would try mounted read-only
(it falls back from an unwritable `TMPDIR` to /tmp, /var/tmp and the working folder, so a read-only
`TMPDIR` alone is no failure: that case is shown to write the workbook and leave `TMPDIR` empty). The
mounts vanish with the process; where namespaces or mounts are not permitted the tests skip. And a
read-only output folder (issue 27 item 9): one line naming the file and the folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNSHARE = shutil.which("unshare")


def in_namespace(script: str, **env: str) -> subprocess.CompletedProcess:
    if UNSHARE is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare(1) for a private mount namespace")
    probe = subprocess.run([UNSHARE, "-m", "--propagation", "private", "mount", "-t", "tmpfs", "tmpfs", "/mnt"],
                           capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"mount namespaces are not permitted here: {probe.stderr.decode().strip()}")
    return subprocess.run([UNSHARE, "-m", "--propagation", "private", "sh", "-ec", script], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                       "PYTHON": sys.executable, **env})


GENERATE = '"$PYTHON" -m budgetbook generate pretrain-7b -o "$OUT/book.xlsx" 2>"$OUT/stderr" || echo "exit $?"'


def test_a_full_temporary_folder_is_named_in_one_line(tmp_path):
    tiny, out = tmp_path / "tiny", tmp_path / "out"
    tiny.mkdir()
    out.mkdir()
    done = in_namespace(f'''
        mount -t tmpfs -o size=64k tmpfs "$TINY"
        head -c 57344 /dev/zero > "$TINY/fill"      # 8 KB left: tempfile's probe passes, a sheet does not fit
        export TMPDIR="$TINY"
        {GENERATE}
        ls -A "$TINY"
        ''', TINY=str(tiny), OUT=str(out))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[:2] == ["exit", "2"], done.stdout
    assert lines[2:] == ["fill"]  # no scratch file left in the temporary folder
    err = (out / "stderr").read_text()
    assert err == (f"Error: {tiny} (the temporary folder): cannot write a temporary file: no space left on the "
                   "device; free space there or set TMPDIR to a folder with room\n"), err
    assert os.listdir(out) == ["stderr"]  # no workbook, no half file


def test_no_usable_temporary_folder_is_named_in_one_line(tmp_path):
    done = in_namespace(f'''
        mount -t tmpfs -o size=1m tmpfs /mnt        # the output's folder: room to spare
        for d in /tmp /var/tmp /usr/tmp; do [ -d "$d" ] && mount -t tmpfs -o ro tmpfs "$d"; done
        cd /tmp                                     # tempfile's last resort, the working folder: read-only too
        export TMPDIR=/tmp/scratch OUT=/mnt
        {GENERATE}
        cat /mnt/stderr; ls -A /mnt
        ''')
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == ["exit 2", "Error: /tmp/scratch (TMPDIR): cannot write temporary files: no usable temporary "
                     "folder (it and the system's are missing or read-only); set TMPDIR to a writable folder",
                     "stderr"], done.stdout


def test_a_read_only_temporary_folder_falls_back_and_writes(tmp_path):
    ro, out = tmp_path / "ro", tmp_path / "out"
    ro.mkdir()
    out.mkdir()
    done = in_namespace(f'''
        mount -t tmpfs -o ro,size=64k tmpfs "$RO"
        export TMPDIR="$RO"
        {GENERATE}
        ls -A "$RO"
        ''', RO=str(ro), OUT=str(out))
    assert done.returncode == 0 and done.stdout.startswith(f"Wrote {out / 'book.xlsx'}: "), done.stdout + done.stderr
    assert (out / "book.xlsx").stat().st_size > 10_000 and (out / "stderr").read_text() == ""


@pytest.mark.parametrize("command", [["generate", "pretrain-7b", "-o", "book.xlsx"],
                                     ["init", "pretrain-7b", "-o", "p.yaml"]])
def test_a_read_only_output_folder_names_the_file_and_the_folder(tmp_path, command):
    """A read-only file system (root writes through chmod, not through this): it said only "cannot write the
    output: permission denied", because removing a temporary name never made failed with EROFS."""
    ro = tmp_path / "ro"
    ro.mkdir()
    done = in_namespace(f'''
        mount -t tmpfs -o ro,size=64k tmpfs "$RO"
        cd "$RO"
        "$PYTHON" -m budgetbook {" ".join(command)} || echo "exit $?"
        ls -A
        ''', RO=str(ro))
    assert done.returncode == 0
    assert done.stdout == "exit 2\n", done.stdout
    assert done.stderr == f"Error: {command[-1]}: cannot write in {ro}: read-only file system\n", done.stderr
