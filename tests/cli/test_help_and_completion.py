"""`--help` reads clean (no `<bool>` metavar on a flag) and the CLI completes in a shell."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run

from budgetbook.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _all_helps(capsys) -> dict[str, str]:
    import typer

    group = typer.main.get_command(app)
    helps = {}
    for command in ["", *group.commands]:  # type: ignore[attr-defined]
        code, out, _ = run(capsys, *([command] if command else []), "--help")
        assert code == 0
        helps[command] = out
    return helps


def test_no_help_shows_a_boolean_metavar(capsys):
    helps = _all_helps(capsys)
    assert len(helps) >= 10  # every command, whoever added it
    for command, text in helps.items():
        assert not re.search(r"<bool>|BOOLEAN|\[true\|false\]", text, flags=re.I), (command, text)
    assert "--force  " in helps["generate"] and "--protect <password>" in helps["generate"]


def test_global_options_are_documented(capsys):
    root = _all_helps(capsys)[""]
    line = next(block for block in README.split("\n\n") if block.startswith("Global options:"))
    for option in re.findall(r"(--[a-z][a-z-]+)", root[root.index("Options"):root.index("Commands")]):
        assert option in line, option


def _wrapper(tmp_path: Path) -> Path:
    """A `budgetbook` on PATH running this tree (the installed script may be another checkout's)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "budgetbook"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "from budgetbook.cli import run; run()" "$@"\n')
    script.chmod(0o755)
    return bin_dir


def test_show_completion_prints_a_script_for_the_budgetbook_command(tmp_path):
    env = {**os.environ, "PATH": f"{_wrapper(tmp_path)}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT), "_BUDGETBOOK_COMPLETE": "source_bash"}
    done = subprocess.run(["budgetbook"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "complete -o default -F _budgetbook_completion budgetbook" in done.stdout
    env.pop("_BUDGETBOOK_COMPLETE")
    # from a bash (not exec-ed away: a second command follows): typer finds the shell in the process
    # tree, and a test runner's may hold none
    done = subprocess.run(["bash", "-c", "budgetbook --show-completion; exit $?"], env=env | {"SHELL": "/bin/bash"},
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "_budgetbook_completion" in done.stdout, done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_options_and_choices(tmp_path):
    """The script, loaded into a real bash, completes as a user pressing TAB would see."""
    probe = r'''
eval "$(_BUDGETBOOK_COMPLETE=source_bash budgetbook)"
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _budgetbook_completion budgetbook; echo "${COMPREPLY[*]}"; }
ask budgetbook gen
ask budgetbook generate --pro
ask budgetbook show -f ""
'''
    env = {**os.environ, "PATH": f"{_wrapper(tmp_path)}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["bash", "-c", probe], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["generate", "--protect", "table json csv markdown"], done.stdout
