"""Stopped mid-write (SIGTERM, SIGHUP, Ctrl-C) or out of space: one line, no half file, the old file intact."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from portfolio import portfolio_plan  # noqa: E402

CLI = [sys.executable, "-c", "from budgetbook.cli import run; run()"]
LINE = "no file was left half-written (outputs are replaced only once complete)"


@pytest.fixture(scope="module")
def big_plan(tmp_path_factory) -> Path:
    """A plan whose workbook takes seconds to save: time to catch the write in the act."""
    path = tmp_path_factory.mktemp("plans") / "big.yaml"
    path.write_text(yaml.safe_dump(portfolio_plan(60, 4, roles=8), sort_keys=False))
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stop_while_saving(big_plan: Path, out: Path, signum: int) -> subprocess.CompletedProcess:
    """Run `generate` and send `signum` once its temporary file exists (the save has begun)."""
    proc = subprocess.Popen(CLI + ["generate", str(big_plan), "-o", str(out), "--force"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.parent.glob(f".{out.name}.*.tmp")):
        assert proc.poll() is None, "generate finished before its temporary file was seen"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.mark.parametrize("signum, name, message", [
    (signal.SIGTERM, "SIGTERM", f"Error: stopped by SIGTERM; {LINE}"),
    (signal.SIGHUP, "SIGHUP", f"Error: stopped by SIGHUP; {LINE}"),
    (signal.SIGINT, "SIGINT", f"Error: interrupted; {LINE}"),
])
def test_a_signal_during_save_leaves_the_old_workbook_and_no_temporary_file(big_plan, tmp_path, signum, name,
                                                                               message):
    out = tmp_path / "book.xlsx"
    out.write_bytes(b"the user's previous file")
    before = _digest(out)
    done = _stop_while_saving(big_plan, out, signum)
    assert done.returncode == 128 + signum, (name, done.stderr)
    errors = [line for line in done.stderr.strip().splitlines() if not line.startswith("Warning: ")]
    assert errors == [message]  # (the big plan warns that LibreOffice cannot open its workbook)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.xlsx"]  # no `.book.xlsx.*.tmp`
    assert _digest(out) == before


@pytest.mark.parametrize("args", [["show"], ["schema"], ["show", "pretrain-7b", "--format", "csv"]])
def test_a_full_output_device_is_one_line_not_a_bug(args):
    with open("/dev/full", "w") as full:
        done = subprocess.run(CLI + args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["Error: cannot write the output: no space left on the device"]


def test_extract_to_a_full_standard_output(tmp_path):
    book = tmp_path / "book.xlsx"
    subprocess.run(CLI + ["generate", "pretrain-7b", "-o", str(book)], check=True, capture_output=True)
    with open("/dev/full", "w") as full:
        done = subprocess.run(CLI + ["extract", str(book)], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["Error: cannot write the output: no space left on the device"]
