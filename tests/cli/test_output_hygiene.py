"""What budgetbook prints and names is safe whatever a plan's text holds.

- control characters in labels (ESC, CSI, OSC, C1, newlines, bidi overrides) are
  shown, never obeyed, in `show`'s table, CSV and Markdown, `check`'s table and
  the one-line errors; JSON keeps the text exact;
- sheet titles fit Excel's 31 UTF-16 units, never split an emoji, never end in a space;
- `show` refuses the plans `generate` refuses (ids that make one defined name twice),
  with the same line.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path

import openpyxl
import pytest
from cli_run import run

from budgetbook.planfile.loader import template_text

BASE = template_text("finetune-13b-lora")
# OSC title change + BEL, clear screen, a one-byte C1 CSI, a right-to-left override, a forged line
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31mevil\u202e\nsecond line"
HOSTILE_YAML = '"\\e]0;pwned\\a\\e[2J\\x9b31mevil\\u202e\\nsecond line"'


def plan_with_items(tmp_path: Path, items: str, text: str = BASE) -> Path:
    plan = tmp_path / "plan.yaml"
    plan.write_text(text + "items:\n" + items)
    return plan


def obeyed(text: str) -> list[str]:
    """Characters a terminal or spreadsheet would act on, other than the output's own line ends."""
    return [c for c in text if c != "\n" and (unicodedata.category(c) == "Cc" or c in "\u202e\u2028")]


@pytest.fixture
def hostile_plan(tmp_path) -> Path:
    return plan_with_items(tmp_path, f"  - id: tools\n    label: {HOSTILE_YAML}\n"
                                     "    cost: {low: 5, base: 10, high: 20}\n")


def test_show_json_keeps_the_label_exact(capsys, hostile_plan):
    code, out, err = run(capsys, "show", hostile_plan, "--format", "json")
    assert (code, err) == (0, "")
    assert {f["label"] for f in json.loads(out)["figures"] if f["item"] == "tools"} == {HOSTILE}


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_show_neutralizes_control_characters(capsys, hostile_plan, fmt):
    code, out, err = run(capsys, "show", hostile_plan, "--format", fmt)
    assert (code, err) == (0, "")
    assert obeyed(out) == [], out
    assert "pwned" in out and "\\x1b" in out  # shown, escaped
    lines = out.splitlines()
    assert not any(line.startswith("second line") for line in lines)  # no forged line
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert len(lines) == 1 + len(rows)
        assert next(r for r in rows if r["item"] == "tools")["label"] == \
            "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31mevil\\u202e\\nsecond line"


def _edited(book: Path, out: Path, **values: float) -> Path:
    wb = openpyxl.load_workbook(book)
    for name, value in values.items():
        sheet, cell = next(iter(wb.defined_names[name].destinations))
        wb[sheet][cell.replace("$", "")] = value
    wb.save(out)
    return out


def test_check_table_and_errors_neutralize_control_characters(capsys, hostile_plan, tmp_path):
    book = tmp_path / "plan.xlsx"
    assert run(capsys, "generate", hostile_plan, "-o", book)[0] == 0
    edited = _edited(book, tmp_path / "edited.xlsx", item_tools_cost=12)
    code, out, err = run(capsys, "check", edited)
    assert (code, err) == (0, "")
    assert "input_changed" in out and "pwned" in out
    assert obeyed(out) == [], out
    code, out, err = run(capsys, "check", edited, "--format", "json")
    assert any(f["message"].startswith(HOSTILE) for f in json.loads(out)["findings"])
    # the one-line warning of `extract` (a Low above the value: a fair edit, issue 25) names the row by its
    # label, and so does its one-line error (a Low below the hard bounds): one line each, nothing obeyed
    widened = _edited(book, tmp_path / "widened.xlsx", item_tools_cost_low=11)
    code, out, err = run(capsys, "extract", widened)
    assert code == 0 and out
    assert err.count("\n") == 1 and err.startswith(f"Warning: {widened}: ") and obeyed(err) == [], err
    broken = _edited(book, tmp_path / "broken.xlsx", item_tools_cost_low=-1)
    code, out, err = run(capsys, "extract", broken)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"Error: {broken}: ") and obeyed(err) == [], err


def units(title: str) -> int:
    return len(title.encode("utf-16-le")) // 2


def test_sheet_titles_fit_excel_in_utf16_units(capsys, tmp_path):
    labels = ["🚀" * 20, "a" * 30 + "🚀", "a" * 29 + " " + "🚀🚀", "🚀" * 20]
    items = "".join(f"  - id: i{n}\n    label: {label}\n    cost: 1\n" for n, label in enumerate(labels))
    plan = plan_with_items(tmp_path, items)
    book = tmp_path / "plan.xlsx"
    code, _, err = run(capsys, "generate", plan, "-o", book)
    assert code == 0, err
    titles = openpyxl.load_workbook(book).sheetnames
    assert all(units(t) <= 31 and t == t.rstrip() for t in titles), titles
    # shortened to whole characters (never half an emoji) and an ellipsis, never a trailing space
    expected = ["🚀" * 15 + "…", "a" * 30 + "…", "a" * 29 + "…", "🚀" * 13 + "… (2)"]
    assert expected == [t for t in titles if t[0] in "🚀a"]
    assert len({t.lower() for t in titles}) == len(titles)


def test_show_refuses_what_generate_refuses_with_the_same_line(capsys, tmp_path):
    # item `compute_x` on market `y` and the compute line on market `x_y` are both `compute_x_y`
    text = BASE.replace("id: decentralized_market", "id: x_y").replace("id: hyperscaler_on_demand", "id: y")
    plan = plan_with_items(tmp_path, "  - id: compute_x\n    cost: 1\n", text)
    expected = (f"Error: {plan}: `items[0].id`: two cells of the workbook would both be named `compute_x_y` "
                "(ids that run into each other, such as `a_b` + `c` and `a` + `b_c`): rename one id\n")
    for command in (["show", plan], ["show", plan, "--format", "json"], ["generate", plan, "-o", tmp_path / "o.xlsx"]):
        assert run(capsys, *command) == (2, "", expected)
    assert not (tmp_path / "o.xlsx").exists()
