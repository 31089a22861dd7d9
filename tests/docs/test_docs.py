"""The documentation stays true: README.md and docs/*.md.

README's commands exist in `--help` and its worked example prints what it says; the plan keys exist
in the schema; CI runs the README's test command; every generated block (wherever it lives) matches
the registry and the plan model; every picture is named for the sheet its text says.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import openpyxl
import pytest
from cli_run import run

from budgetbook.cli import main
from budgetbook.lineitems.registry import built_in_lines
from budgetbook.planfile.schema import plan_keys
from budgetbook.readme import SECTIONS, block, pages

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {path: path.read_text(encoding="utf-8") for path in pages(ROOT)}
DOC = {path.stem: text for path, text in PAGES.items() if path.parent == ROOT / "docs"}


def test_the_manual_is_in_docs_and_the_readme_is_short():
    assert len(README.splitlines()) < 300
    assert {"plans", "accounting", "workbook", "check", "diff", "ranges", "actuals", "physics", "commands",
            "scale", "development"} <= set(DOC)
    for name in DOC:
        assert f"(docs/{name}.md)" in README, f"README links no docs/{name}.md"
    for path, text in PAGES.items():
        for link in re.findall(r"\]\(((?:\.\./|docs/)?[a-z-]+\.md)(?:#[a-z0-9-]+)?\)", text):
            assert (path.parent / link).is_file(), (path.name, link)
        rows = [line for line in text.splitlines() if line.startswith("| ")]
        assert all(len(line) < 300 for line in rows), (path.name, max(rows, key=len)[:80])


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


def test_plan_keys_exist_and_point_to_schema():
    plans = DOC["plans"]
    assert "budgetbook schema > plan.schema.json" in plans
    assert "# yaml-language-server: $schema=plan.schema.json" in plans
    section = plans[plans.index("## Plan keys"):]
    kinds = set(re.findall(r"`([a-z_]+)`", section[section.index("| `workloads[].kind`"):].split("\n", 1)[0]))
    named = set(re.findall(r"`([a-z_]+)`", section)) - {"workloads[0].mfu"} - (kinds - {"kind"})
    unknown = named - plan_keys()
    assert not unknown, f"README names keys the schema lacks: {unknown}"
    top_level = {"name", "description", "currency", "as_of", "markets", "workloads", "people", "items", "serving"}
    assert top_level <= named


def test_exit_codes():
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 128 + N |"):
        assert code in DOC["commands"]
    for code in ("0 ok", "1 a finding", "2 bad usage", "3 a bug", "128 + N"):
        assert code in README


def test_the_built_in_lines_a_further_item_may_meet_are_listed():
    paragraph = DOC["plans"].split("## Further items and the built-in lines")[1].split("\n\n")[1]
    listed = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert set(built_in_lines()) <= listed, set(built_in_lines()) - listed


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


def _generated(name: str) -> tuple[Path, str]:
    """The one page holding the generated block `name`, and the block."""
    found = [(path, block(text, name)) for path, text in PAGES.items() if block(text, name) is not None]
    assert len(found) == 1, f"the `{name}` block must be in exactly one page, found {[p.name for p, _ in found]}"
    assert sum(text.count(f"<!-- generated:{name} -->") for text in PAGES.values()) == 1
    return found[0]  # type: ignore[return-value]


@pytest.mark.parametrize("generated", sorted(SECTIONS))
def test_generated_tables_match_the_registry_and_schema(generated):
    path, text = _generated(generated)
    assert text == SECTIONS[generated](), (
        f"{path.relative_to(ROOT)}'s `{generated}` block is stale: run `python -m budgetbook.readme`")


def test_generated_blocks_sit_where_they_belong():
    assert _generated("plan-keys")[0].name == "plans.md"
    assert _generated("sheets")[0].name == _generated("name-prefixes")[0].name == "workbook.md"


def test_plan_keys_cover_every_schema_key_and_no_other():
    listed = set(re.findall(r"^\| `([^`]+)`", _generated("plan-keys")[1], flags=re.M))
    leaves = {re.split(r"[.\[]", path.replace("[]", ""))[-1] for path in listed}
    maps = {path.split(".")[-2] for path in listed if path.endswith("<id>")}
    leaves = {leaf for leaf in leaves if leaf != "<id>"} | maps
    assert leaves == plan_keys()


def _stub_bin(tmp_path: Path, with_sudo: bool) -> Path:
    """A PATH of stand-ins that record how they were called: the real ones would install packages."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    names = ["apt-get", "pip", "npm", "pytest"] + (["sudo"] if with_sudo else [])
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
    # npm is on the stub PATH, so Node is not installed again (a NodeSource nodejs bundles npm and
    # conflicts with Debian's npm package)
    expected = ["apt-get update", "apt-get install -y libreoffice-calc poppler-utils python3-uno gnumeric chromium",
                "pip install -e .[test]", "npm ci --no-audit --no-fund", "pytest -q -n auto"]
    if with_sudo:
        expected = [f"{sudo}{expected[0]}", expected[0], f"{sudo}{expected[1]}", expected[1], *expected[2:]]
    assert lines == expected


def test_pictures_exist_and_are_named_for_their_sheet():
    pictures = [(page, alt, path) for page, text in PAGES.items()
                for alt, path in re.findall(r"!\[([^\]]*)\]\(((?:\.\./)?samples/[^)]+\.png)\)", text)]
    assert len(pictures) >= 3
    for page, alt, path in pictures:
        assert (page.parent / path).resolve().is_file(), (page.name, path)
        sheet = alt.split(" sheet")[0].lower().replace(" ", "-")
        assert path.endswith(f"-{sheet}.png"), (alt, path)  # samples/regenerate.py names pages by sheet


def _amounts(text: str) -> list[str]:
    return re.findall(r"-?\$[\d,]+|[+-]\d+\.\d%", text)


def test_the_worked_example_prints_what_the_readme_shows(capsys, tmp_path, monkeypatch):
    example = README[README.index("## A worked example"):README.index("## Commands")]
    shown = re.findall(r"```text\n(.*?)```", example, flags=re.S)
    commands = [line.split("#")[0].split() for block in re.findall(r"```sh\n(.*?)```", example, flags=re.S)
                for line in block.splitlines()]
    assert [c[1] for c in commands] == ["init", "show", "generate", "check", "extract", "diff"]
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for command in commands:
        if command[1] == "check":  # the edit the example describes, as a script makes it
            book = openpyxl.load_workbook("plan.xlsx")
            sheet, ref = next(iter(book.defined_names["mkt_decentralized_market_price_h100_sxm"].destinations))
            assert ref == "$C$9" and book[sheet]["C9"].value == 1.8
            book[sheet]["C9"] = 1.5
            book.save("plan.xlsx")
        code, out, err = run(capsys, *command[1:])
        assert code == 0, (command, err)
        outputs[command[1]] = out
    assert "input_changed" in outputs["check"] and "1.8 -> 1.5" in outputs["check"]
    assert "plan.xlsx: OK" in outputs["check"]
    assert _amounts(shown[0]) == _amounts(outputs["show"])[:len(_amounts(shown[0]))]
    assert "Cheapest: Decentralized market, $170,808" in outputs["show"]
    assert _amounts(shown[1]) == _amounts(outputs["diff"])[:len(_amounts(shown[1]))]
