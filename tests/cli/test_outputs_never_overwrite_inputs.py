"""No writing command ever writes over one of its own inputs, with or without `--force`.

Each writing command (`generate`, `extract`, `init`) is pointed at its input
under each of its names: the same path, `./x/../` spelling, a hard link, a
symlink. Each time: exit 2, one line on stderr naming the output, no invitation
to `--force` (it would not help), the input byte-for-byte unchanged. And no
output is ever renamed over a FIFO (or a device: `-o /dev/null --force`).

The built-in templates are inputs too (`generate TEMPLATE`, `init TEMPLATE`):
these tests point the package at a private copy of them, so a failure can
never overwrite the shipped files.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
from pathlib import Path

import pytest
from cli_run import run, sha

from budgetbook.api import generate_workbook
from budgetbook.planfile import loader
from budgetbook.planfile.loader import template_names, template_text

FT = "finetune-13b-lora"
ALIASES = ["same", "absolute", "dotdot", "hardlink", "symlink"]


@pytest.fixture(scope="module")
def workbook(tmp_path_factory) -> Path:
    return generate_workbook(FT, tmp_path_factory.mktemp("outputs") / "book.xlsx")


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """The working folder, with the package reading a private copy of the built-in templates."""
    templates = tmp_path / "templates"
    templates.mkdir()
    for name in template_names():
        (templates / f"{name}.yaml").write_text(template_text(name), encoding="utf-8")
    monkeypatch.setattr(loader, "_templates_dir", lambda: templates)
    assert loader._templates_dir() == templates and template_text(FT) == (templates / f"{FT}.yaml").read_text()
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def no_hang():
    """A FIFO opened for reading blocks until a writer comes: fail the test rather than hang the suite."""
    def hung(*_):
        raise TimeoutError("blocked on a FIFO")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def inputs(here: Path, workbook: Path, command: str) -> tuple[Path, list[str]]:
    """The input file of `command` (a path relative to `here`) and the command line up to `-o`."""
    if command == "generate-plan":
        (here / "p.yaml").write_text(template_text(FT), encoding="utf-8")
        return Path("p.yaml"), ["generate", "p.yaml"]
    if command == "extract":
        shutil.copyfile(workbook, here / "book.xlsx")
        return Path("book.xlsx"), ["extract", "book.xlsx"]
    template = Path("templates") / f"{FT}.yaml"
    return template, {"generate-template": ["generate", FT], "generate-default": ["generate"],
                      "init": ["init", FT]}[command]


def alias(here: Path, target: Path, kind: str) -> str:
    """Another name of `target` (relative to `here`)."""
    if kind == "same":
        return str(target)
    if kind == "absolute":
        return str(here / target)
    if kind == "dotdot":
        return f"./x/../{target}"
    link = here / f"{kind}{target.suffix}"
    if kind == "hardlink":
        os.link(target, link)
    else:
        link.symlink_to(here / target)
    return str(link)


def assert_refused(capsys, args: list, output: str, phrase: str) -> None:
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith(f"Error: {Path(output)}: "), err  # as pathlib spells it
    assert phrase in err and "--force" not in err, err


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("kind", ALIASES)
@pytest.mark.parametrize("command", ["generate-plan", "generate-template", "generate-default", "extract", "init"])
def test_output_never_replaces_an_input(capsys, here, workbook, command, kind, force):
    source, argv = inputs(here, workbook, command)
    before = sha(source)
    output = alias(here, source, kind)
    assert_refused(capsys, [*argv, "-o", output, *(["--force"] if force else [])], output,
                   "would overwrite the input file")
    assert sha(source) == before
    if kind == "symlink":
        assert Path(output).is_symlink()
    if kind == "hardlink":
        assert os.path.samefile(output, source)


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_plan_named_like_its_default_output(capsys, here, force):
    """`generate p.xlsx` of a plan named `p`: the default output `p.xlsx` is the plan itself."""
    plan = here / "p.xlsx"
    plan.write_text(template_text(FT).replace(f"name: {FT}", "name: p", 1), encoding="utf-8")
    before = sha(plan)
    assert_refused(capsys, ["generate", "p.xlsx", *(["--force"] if force else [])], "p.xlsx",
                   "would overwrite the input file")
    assert sha(plan) == before


def test_input_is_refused_before_the_edit_guard_reads_the_output(capsys, here, monkeypatch):
    import budgetbook.review.guard

    def read(*_):
        raise AssertionError("the edit guard read the plan as a workbook")

    monkeypatch.setattr(budgetbook.review.guard, "edits_since_generated", read)
    (here / "p.yaml").write_text(template_text(FT), encoding="utf-8")
    assert_refused(capsys, ["generate", "p.yaml", "-o", "p.yaml"], "p.yaml", "would overwrite the input file")


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("command", ["generate-plan", "extract", "init"])
def test_fifo_is_never_replaced(capsys, here, workbook, no_hang, command, force):
    """What `-o /dev/null --force` does to a device node, tried on a FIFO of our own."""
    source, argv = inputs(here, workbook, command)
    before = sha(source)
    fifo = here / "out.fifo"
    os.mkfifo(fifo)
    assert_refused(capsys, [*argv, "-o", fifo, *(["--force"] if force else [])], str(fifo),
                   "is a FIFO, not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sha(source) == before
    assert sorted(p.name for p in here.iterdir() if p.name.endswith(".tmp")) == []
