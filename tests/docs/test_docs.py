"""README stays true: its commands exist in `--help`, its plan keys exist in the schema, CI runs its test command."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from budgetbook.cli import main
from budgetbook.plan.schema import plan_keys
from budgetbook.readme import SECTIONS, block

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def help_commands(capsys) -> set[str]:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    commands = out[out.index("Commands"):]
    return set(re.findall(r"^[│|]?\s+([a-z][a-z-]+)\s{2,}", commands, flags=re.M))


def test_every_help_command_is_documented(capsys):
    commands = help_commands(capsys)
    assert {"templates", "init", "show", "schema"} <= commands
    documented = set(re.findall(r"^\| `budgetbook ([a-z-]+)", README, flags=re.M))
    assert commands <= documented, f"commands missing from README: {commands - documented}"


def test_every_command_help_option_is_documented(capsys):
    for command in help_commands(capsys):
        assert main([command, "--help"]) == 0
        options = re.findall(r"(?:(-[a-zA-Z]), )?(--[a-z][a-z-]+)", capsys.readouterr().out)  # `-o, --output`
        row = next(line for line in README.splitlines() if line.startswith(f"| `budgetbook {command}"))
        for short, long in options:
            if long != "--help":
                assert long in row or (short and f"{short} " in row), (command, long, row)


def test_readme_plan_keys_exist_and_point_to_schema():
    assert "budgetbook schema > plan.schema.json" in README
    assert "# yaml-language-server: $schema=plan.schema.json" in README
    section = README[README.index("## Plan keys"):README.index("## Architecture")]
    kinds = set(re.findall(r"`([a-z_]+)`", section[section.index("| `workloads[].kind`"):].split("\n", 1)[0]))
    named = set(re.findall(r"`([a-z_]+)`", section)) - {"workloads[0].mfu"} - (kinds - {"kind"})
    unknown = named - plan_keys()
    assert not unknown, f"README names keys the schema lacks: {unknown}"
    top_level = {"name", "description", "currency", "as_of", "markets", "workloads", "people", "items", "serving"}
    assert top_level <= named


def test_readme_exit_codes():
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |"):
        assert code in README


def test_quick_start_has_exactly_two_commands():
    blocks = re.findall(r"<!-- quickstart-(run|test) -->\n```sh\n(.*?)```", README, flags=re.S)
    assert [kind for kind, _ in blocks] == ["run", "test"]
    assert all(len(body.strip().splitlines()) == 1 for _, body in blocks)
    assert blocks[0][1].strip() == "pip install . && budgetbook generate"
    assert blocks[1][1].strip().endswith("pytest -q -n auto")


def test_ci_runs_exactly_the_readme_test_command_then_the_linters():
    script = (ROOT / ".ci" / "run").read_text()
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script
    assert "ruff check" in script and "mypy" in script
    assert "sudo()" not in script  # the README's command must be right by itself
    # the script's own extraction, run against the README
    extract = re.search(r'test_command="\$\((awk .*?)\)"\n', script).group(1)
    got = subprocess.run(["bash", "-c", extract], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    expected = re.search(r"<!-- quickstart-test -->\n```sh\n(.*?)\n```", README, flags=re.S).group(1)
    assert got.strip() == expected.strip()
    assert 'eval "$test_command"' in script


@pytest.mark.parametrize("generated", sorted(SECTIONS))
def test_readme_generated_tables_match_the_registry_and_schema(generated):
    assert block(README, generated) == SECTIONS[generated](), (
        f"README.md's `{generated}` table is stale: run `python -m budgetbook.readme README.md`")


def test_readme_plan_keys_cover_every_schema_key_and_no_other():
    listed = set(re.findall(r"^\| `([^`]+)`", block(README, "plan-keys"), flags=re.M))
    leaves = {re.split(r"[.\[]", path.replace("[]", ""))[-1] for path in listed}
    maps = {path.split(".")[-2] for path in listed if path.endswith("<id>")}
    leaves = {leaf for leaf in leaves if leaf != "<id>"} | maps
    assert leaves == plan_keys()


def _stub_bin(tmp_path: Path, with_sudo: bool) -> Path:
    """A PATH of stand-ins that record how they were called: the real ones would install packages."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    names = ["apt-get", "pip", "pytest"] + (["sudo"] if with_sudo else [])
    for name in names:
        stub = bin_dir / name
        body = '"$@"' if name == "sudo" else ":"
        stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "$CALLS"\n{body}\n')
        stub.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("with_sudo", [False, True], ids=["root-without-sudo", "user-with-sudo"])
def test_quick_start_test_command_runs_as_written(tmp_path, with_sudo):
    command = re.search(r"<!-- quickstart-test -->\n```sh\n(.*?)\n```", README, flags=re.S).group(1)
    calls = tmp_path / "calls"
    env = {"PATH": str(_stub_bin(tmp_path, with_sudo)), "CALLS": str(calls)}
    # as .ci/run runs it: under `set -euo pipefail`, where any failing step (even in an assignment) stops it
    subprocess.run(["/bin/bash", "-euo", "pipefail", "-c", command], cwd=ROOT, env=env, check=True)
    lines = calls.read_text().splitlines()
    sudo = "sudo " if with_sudo else ""
    expected = ["apt-get update", "apt-get install -y libreoffice-calc poppler-utils python3-uno",
                "pip install -e .[test]", "pytest -q -n auto"]
    if with_sudo:
        expected = [f"{sudo}{expected[0]}", expected[0], f"{sudo}{expected[1]}", expected[1], *expected[2:]]
    assert lines == expected


def test_readme_pictures_exist_and_are_named_for_their_sheet():
    pictures = re.findall(r"!\[([^\]]*)\]\((samples/[^)]+\.png)\)", README)
    assert len(pictures) >= 3
    for alt, path in pictures:
        assert (ROOT / path).is_file(), path
        sheet = alt.split(" sheet")[0].lower().replace(" ", "-")
        assert path.endswith(f"-{sheet}.png"), (alt, path)  # samples/regenerate.py names pages by sheet
