"""CSV formula injection (issue 30 item 3): a label a spreadsheet would run is written so it opens as text.

A plan's market labels (and a workload's) start with the characters a spreadsheet takes for a formula
(`=`, `+`, `-`, `@`, a tab). Every CSV the commands write of it (`show`, `show --by month`, `sensitivity`,
`export --format focus-forecast`) holds each of them behind a `'`, and Gnumeric (`ssconvert`, a real
spreadsheet's CSV import) opens the forecast with every such cell a text, none a formula; the same file with
the guard taken off opens `=1+2` as a formula, so the check is one that can fail.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
from cli_run import run

TEMPLATE = Path(__file__).parents[2] / "templates" / "pretrain-7b.yaml"
# the labels, each a formula's start (the tab and carriage return as YAML escapes); the first is a live formula
LABELS = {"Hyperscaler (committed)": "=1+2", "Neo-cloud": "+1+2", "Decentralized market": "@SUM(1,2)",
          "Hybrid (commit core, decentralized experiments)": "-1+2"}
STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    text = TEMPLATE.read_text()
    for was, label in LABELS.items():
        text = text.replace(f"label: {was}\n", f"label: '{label}'\n", 1)
    text = text.replace("    label: Pretraining core, 7B on 5T tokens\n", '    label: "\\t=5+6"\n', 1)
    path = tmp_path_factory.mktemp("injection") / "hostile.yaml"
    path.write_text(text)
    return path


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _unguarded(cells: list[str]) -> list[str]:
    return [c for c in cells if c.startswith(STARTS) and not _number(c)]


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("args", [("show", "--format", "csv"), ("show", "--by", "month", "--format", "csv"),
                                  ("sensitivity", "--format", "csv"), ("export", "--format", "focus-forecast")],
                         ids=["show", "months", "sensitivity", "focus-forecast"])
def test_every_csv_holds_a_formula_label_as_text(capsys, plan, args):
    command, *rest = args
    code, out, err = run(capsys, command, plan, *rest)
    assert code == 0, err
    cells = _cells(out)
    assert not _unguarded(cells)
    hostile = [c for c in cells if any(label in c for label in (*LABELS.values(), "=5+6"))]
    # the months' labels are the line items' (a market is its id there); the others cite the plan's labels
    assert bool(hostile) == ("--by" not in rest)
    assert all(c.startswith("'") or not c.startswith(tuple(LABELS.values())) for c in hostile)
    if command == "export":
        assert {"'=1+2", "'+1+2", "'@SUM(1,2)", "'-1+2"} <= set(cells)


@pytest.mark.skipif(shutil.which("ssconvert") is None, reason="needs Gnumeric's ssconvert")
def test_a_spreadsheet_opens_the_forecast_with_no_formula(capsys, plan, tmp_path):
    code, out, err = run(capsys, "export", plan, "--format", "focus-forecast")
    assert code == 0, err
    guarded = tmp_path / "forecast.csv"
    guarded.write_text(out)
    bare = tmp_path / "bare.csv"  # the control: the guard taken off the first label
    bare.write_text(out.replace("'=1+2", "=1+2"))
    kinds = {}
    for path in (guarded, bare):
        subprocess.run(["ssconvert", str(path), str(path.with_suffix(".xlsx"))], check=True, timeout=120,
                       capture_output=True)
        ws = openpyxl.load_workbook(path.with_suffix(".xlsx")).active
        kinds[path.stem] = {(c.value, c.data_type) for row in ws.iter_rows() for c in row
                            if isinstance(c.value, str) and any(label in c.value for label in LABELS.values())}
    assert kinds["forecast"] and all(kind == "s" for _, kind in kinds["forecast"])
    assert ("=1+2", "s") in kinds["forecast"] and ("=1+2", "f") in kinds["bare"]
