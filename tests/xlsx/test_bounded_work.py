"""Small inputs that asked for unbounded work (issue 16, item 6) are refused before it, or done in bounded time.

Every hostile file is real: a generated workbook whose sheet XML is rewritten
(`hostile.with_sheet_xml`), or edited with openpyxl, or a plan file. The CLI
runs in-process (`cli_run.run`). `benchmarks/bench_bounds.py` measures the
same cases' time and peak memory in fresh processes, before and after.
"""

from __future__ import annotations

import json
from pathlib import Path

import hostile
import openpyxl
import pytest
from cli_run import run, sha

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import template_text
from budgetbook.xlsx import evaluate

FT = "finetune-13b-lora"


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return generate_workbook(FT, tmp_path_factory.mktemp("bounds") / f"{FT}.xlsx")


def refused(capsys, path: Path, reason: str, commands=("check", "extract")) -> None:
    """Each command: exit 2, the one line `Error: PATH: reason`, the file unchanged (times: bench_bounds.py)."""
    before = sha(path)
    for command in commands:
        code, out, err = run(capsys, command, path)
        assert (code, out) == (2, ""), (command, err)
        assert err == f"Error: {path}: {reason}\n", err
    assert sha(path) == before


# ---------------------------------------------------------------- plans

def test_twenty_thousand_gpu_prices_are_refused_at_load(capsys, tmp_path):
    """check took over 120 s on such a plan's workbook; now the plan itself is refused, at once."""
    text = template_text(FT)
    prices = "".join(f"      G{i}: 1.0\n" for i in range(20_000))
    plan = tmp_path / "plan.yaml"
    plan.write_text(text.replace("      H100_SXM: 3.00 ", prices + "      H100_SXM: 3.00 ", 1))
    for command in (["show", plan], ["generate", plan, "-o", tmp_path / "out.xlsx"]):
        code, out, err = run(capsys, *command)
        assert (code, out) == (2, "")
        assert err == f"Error: {plan}: `markets[0].gpu_prices`: at most 50 entries, got 20,001\n"
    assert not (tmp_path / "out.xlsx").exists()


def test_fifty_gpu_prices_still_load(capsys, tmp_path):
    text = template_text(FT)
    prices = "".join(f"      G{i}: 1.0\n" for i in range(49))
    plan = tmp_path / "plan.yaml"
    plan.write_text(text.replace("      H100_SXM: 3.00 ", prices + "      H100_SXM: 3.00 ", 1))
    code, _, err = run(capsys, "show", plan, "--format", "json")
    assert (code, err) == (0, "")


# ---------------------------------------------------------------- workbooks

def test_a_million_empty_rows_are_refused(capsys, book, tmp_path):
    """2.7 MB on disk; check took 34 s and 1.3 GB (a RowDimension per row)."""
    path = hostile.with_sheet_xml(tmp_path / "rows.xlsx", book.read_bytes(), "About", hostile.empty_rows_to_the_end)
    assert path.stat().st_size < 4_000_000
    refused(capsys, path, "holds over 200,000 rows, more than a budget workbook needs (limit reached in "
                          "sheet `About`)")


def test_one_cell_at_xfd1048576_is_refused(capsys, book, tmp_path):
    """A single far-away cell made the used range 17 billion cells: > 120 s and 3 GB."""
    path = hostile.with_sheet_xml(tmp_path / "far.xlsx", book.read_bytes(), "Checks", hostile.far_away_cell)
    refused(capsys, path, "sheet `Checks` reaches cell XFD1048576: its used range A1:XFD1048576 is "
                          "17,179,869,184 cells, over the limit of 2,000,000; delete the far-away rows and "
                          "columns (Ctrl+End shows the last cell) and save again")


def test_hyperlink_over_the_whole_grid_is_refused(capsys, book, tmp_path):
    path = hostile.with_sheet_xml(tmp_path / "link.xlsx", book.read_bytes(), "About", hostile.hyperlink_over_the_grid)
    refused(capsys, path, "sheet `About` has hyperlinks over 17,179,869,184 cells (limit 1,000,000): "
                          "loading would copy the link into each")


def test_huge_declared_dimension_is_ignored_in_bounded_time(capsys, book, tmp_path):
    """`<dimension ref="A1:XFD1048576"/>` is a claim, not cells: check reads the cells and is done."""
    path = hostile.with_sheet_xml(tmp_path / "dim.xlsx", book.read_bytes(), "Inputs", hostile.huge_dimension)
    code, out, err = run(capsys, "check", path, "--format", "json")
    assert (code, err) == (0, "") and json.loads(out)["findings"] == []


def _with_formula(book: Path, path: Path, formula: str) -> Path:
    wb = openpyxl.load_workbook(book)
    wb["Summary"]["H2"] = formula  # a cell of the user's own beside the figures
    wb.save(path)
    return path


def test_whole_column_sum_stays_on_the_fast_path(capsys, book, tmp_path, monkeypatch):
    """`=SUM(Inputs!A:A)` used to send the whole workbook to ExcelModel (~850 MB); now it is cut to the used rows."""
    def no_fallback(*args, **kwargs):
        raise AssertionError("fell back to ExcelModel")

    monkeypatch.setattr(evaluate, "evaluate_with_model", no_fallback)
    path = _with_formula(book, tmp_path / "sum.xlsx", "=SUM(Inputs!C:C)+COUNT(Inputs!$C:$E)")
    code, out, err = run(capsys, "check", path, "--format", "json")
    # evaluated, not refused; the helper cell is the user's own (nothing of ours reads it): one info, no other
    findings = json.loads(out)["findings"]
    assert (code, err) == (0, "") and [(f["kind"], f["sheet"], f["cell"]) for f in findings] == [
        ("user_content", "Summary", "H2")]


def test_whole_column_the_fast_path_cannot_cut_is_refused_before_excelmodel(capsys, book, tmp_path):
    """COUNTBLANK counts the blanks, so the column cannot be cut; ExcelModel would build 1,048,576 cells."""
    path = _with_formula(book, tmp_path / "blank.xlsx", "=COUNTBLANK(Inputs!A:A)")
    refused(capsys, path, "the formula in Summary!H2 reads `Inputs!A:A`, 1,048,576 cells, in a way the fast "
                          "evaluator cannot cut to the used rows (whole columns only straight into AND, AVERAGE, "
                          "COUNT, COUNTA, MAX, MIN, OR, PRODUCT, SUM); evaluating it would build over 500,000 "
                          "cells: refer to the used cells instead (such as `A1:A100`)", commands=("check",))
