"""Outputs appear whole or not at all, never over an input, with one-line errors."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import openpyxl
import pytest
from cli_run import sha

from budgetbook.atomic import atomic_output, atomic_write, check_destination, write_bytes_atomic, write_text_atomic
from budgetbook.errors import OutputError


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def one_line(error: OutputError, path: Path) -> str:
    message = str(error)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_text_written_whole(tmp_path):
    out = tmp_path / "plan.yaml"
    write_text_atomic(out, "a: 1\r\nb: 2\n")
    assert out.read_bytes() == b"a: 1\r\nb: 2\n"
    assert leftovers(tmp_path) == []


def test_mode_is_ordinary_not_private(tmp_path):
    out = write_bytes_atomic(tmp_path / "o.bin", b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_replacing_keeps_the_existing_mode(tmp_path):
    out = tmp_path / "o.txt"
    out.write_text("old")
    out.chmod(0o640)
    write_text_atomic(out, "new")
    assert out.read_text() == "new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_workbook_saved_through_writer(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=1+1"
    out = atomic_write(tmp_path / "book.xlsx", wb.save)
    assert openpyxl.load_workbook(out).active["A1"].value == "=1+1"


def test_writer_failing_halfway_leaves_old_file_and_no_temp(tmp_path):
    out = tmp_path / "book.xlsx"
    out.write_bytes(b"previous good version")
    before = sha(out)

    def half_then_crash(tmp: Path):
        with open(tmp, "wb") as handle:
            handle.write(b"PK\x03\x04 half a zip")
        raise RuntimeError("disk pulled")

    with pytest.raises(RuntimeError, match="disk pulled"):
        atomic_write(out, half_then_crash)
    assert sha(out) == before
    assert leftovers(tmp_path) == []


def test_failure_with_no_previous_file_leaves_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt), atomic_output(tmp_path / "new.xlsx") as tmp:
        tmp.write_bytes(b"partial")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_os_error_in_writer_is_one_line(tmp_path):
    out = tmp_path / "o.txt"

    def no_space(tmp: Path):
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError) as caught:
        atomic_write(out, no_space)
    assert "no space left" in one_line(caught.value, out)
    assert list(tmp_path.iterdir()) == []


def test_refuses_to_overwrite_the_input(tmp_path):
    book = tmp_path / "book.xlsx"
    book.write_bytes(b"input bytes")
    before = sha(book)
    with pytest.raises(OutputError, match="would overwrite the input file") as caught:
        write_text_atomic(book, "out", protect=[book])
    one_line(caught.value, book)
    assert sha(book) == before


@pytest.mark.parametrize("alias", ["relative", "symlink", "hardlink", "dotdot"])
def test_refuses_the_input_under_another_name(tmp_path, monkeypatch, alias):
    book = tmp_path / "book.xlsx"
    book.write_bytes(b"input bytes")
    before = sha(book)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    target = {"relative": Path("book.xlsx"), "dotdot": Path("sub/../book.xlsx"),
              "symlink": tmp_path / "link.xlsx", "hardlink": tmp_path / "hard.xlsx"}[alias]
    if alias == "symlink":
        target.symlink_to(book)
    if alias == "hardlink":
        os.link(book, target)
    with pytest.raises(OutputError, match="would overwrite the input file"):
        write_bytes_atomic(target, b"out", protect=[str(book)])
    assert sha(book) == before


def test_destination_is_a_directory(tmp_path):
    with pytest.raises(OutputError, match="is a directory") as caught:
        write_text_atomic(tmp_path, "x")
    one_line(caught.value, tmp_path)


def test_missing_directory(tmp_path):
    out = tmp_path / "nope" / "o.txt"
    with pytest.raises(OutputError, match="does not exist") as caught:
        write_text_atomic(out, "x")
    one_line(caught.value, out)


def test_parent_is_a_file(tmp_path):
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "o.txt"
    with pytest.raises(OutputError, match="not a directory") as caught:
        write_text_atomic(out, "x")
    one_line(caught.value, out)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="permission denied") as caught:
            write_text_atomic(locked / "o.txt", "x")
        one_line(caught.value, locked / "o.txt")
    finally:
        locked.chmod(0o700)


def test_unwritable_file_system(tmp_path):
    # /proc refuses new files even to root, so this runs where chmod cannot stop us
    out = Path("/proc/budgetbook-test.xlsx")
    if not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    with pytest.raises(OutputError) as caught:
        write_text_atomic(out, "x")
    assert "cannot write" in one_line(caught.value, out)


def test_existing_file_needs_force(tmp_path):
    out = tmp_path / "plan.yaml"
    assert check_destination(out, force=False) == out
    out.write_text("x")
    with pytest.raises(OutputError, match="already exists; pass --force to overwrite it"):
        check_destination(out, force=False)
    check_destination(out, force=True)


def test_an_input_is_refused_before_force_is_considered(tmp_path):
    book = tmp_path / "book.xlsx"
    book.write_bytes(b"input bytes")
    for force in (False, True):
        with pytest.raises(OutputError, match="would overwrite the input file") as caught:
            check_destination(book, protect=[book], force=force)
        assert "--force" not in str(caught.value)  # forcing would not help: never invite it


@pytest.mark.parametrize("via_symlink", [False, True])
def test_fifo_is_not_replaced(tmp_path, via_symlink):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = fifo
    if via_symlink:
        target = tmp_path / "link"
        target.symlink_to(fifo)
    with pytest.raises(OutputError, match="is a FIFO, not a regular file") as caught:
        write_text_atomic(target, "x")
    one_line(caught.value, target)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and target.exists()
    assert leftovers(tmp_path) == []


def test_a_stop_as_the_temporary_file_is_made_still_removes_it(tmp_path, monkeypatch):
    """A signal the moment the file exists (the test's trigger too) must be within the cleanup's reach. It once
    was not: the file was made with signals held and delivered just before the `try` that removes it (CI saw
    a `.tmp` left after SIGTERM), and a mask does not hold a signal that another thread takes."""
    import signal

    from budgetbook import atomic
    from budgetbook.signals import Terminated, signals_as_exceptions

    made = atomic._create

    def made_then_stopped(path):
        made(path)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(atomic, "_create", made_then_stopped)
    out = tmp_path / "book.xlsx"
    out.write_bytes(b"old")
    with signals_as_exceptions(), pytest.raises(Terminated):
        with atomic_output(out) as tmp:
            time.sleep(5)  # the stop arrives before this ends
            tmp.write_bytes(b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.xlsx"] and out.read_bytes() == b"old"


def test_dash_is_standard_output_or_refused(tmp_path, capsys, monkeypatch):
    """`-o -` (issue 27): `export` and `extract` print, as without `-o`; a command that writes a file refuses it
    in one line, before any work, and no file named `-` appears."""
    from cli_run import run

    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match="^-: is not a file name"):
        check_destination("-")
    code, out, err = run(capsys, "export", "pretrain-7b", "-o", "-")
    assert (code, err) == (0, "") and out.startswith("BilledCost,") and out == run(capsys, "export", "pretrain-7b")[1]
    refusal = ("Error: -: is not a file name: this command writes a file, not standard output; give the name of "
               "the file to write\n")
    assert run(capsys, "report", "pretrain-7b", "-o", "-") == (2, "", refusal)
    assert run(capsys, "generate", "pretrain-7b", "-o", "-") == (2, "", refusal)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
