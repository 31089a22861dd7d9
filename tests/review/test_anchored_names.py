"""A book that would pass LibreOffice's name limit names only its inputs, figures and anchors (issue 28 item 4).

`sheetkit.anchors` finds every other calculation by the named cells of its row and column. Shown
on a small portfolio with the name budget lowered to nothing (a 500x6 portfolio is the real case:
`tests/review/test_check_at_scale.py` counts its names, `benchmarks/bench_scale.py` opens it in
LibreOffice): the book checks clean, no formula reads a name the book does not hold, and rows and
columns inserted in LibreOffice move the anchored cells with their anchors, every figure LibreOffice
recalculates equal to the reference.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import openpyxl
import pytest
import yaml
from cli_run import run
from libreoffice import cell_values, needs_uno, uno_session

from budgetbook.planfile.loader import load_plan
from budgetbook.sheetkit import anchors
from budgetbook.workbook.build import workbook_layout

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from portfolio import portfolio_plan  # noqa: E402

IDENTIFIER = re.compile(r'"(?:[^"]|"")*"|\'(?:[^\']|\'\')*\'|[A-Za-z_][A-Za-z0-9_.]*')


@pytest.fixture(scope="module")
def anchored(tmp_path_factory):
    """(plan file, book) of a 6-workload, 3-market portfolio written by anchors (the budget lowered to 0)."""
    work = tmp_path_factory.mktemp("anchored")
    plan = work / "portfolio.yaml"
    plan.write_text(yaml.safe_dump(portfolio_plan(6, 3, roles=2), sort_keys=False))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(anchors, "NAME_BUDGET", 0)
        yield plan, work / "book.xlsx"


def check_json(capsys, book: Path) -> dict:
    code, out, err = run(capsys, "check", book, "--format", "json")
    assert err == "" and code in (0, 1)
    return json.loads(out)


def test_the_book_names_its_anchors_and_checks_clean(capsys, anchored):
    plan, book = anchored
    code, out, err = run(capsys, "generate", plan, "-o", book)
    assert code == 0, err
    layout = workbook_layout(load_plan(plan))
    named = {spec.name for spec in layout if spec.named}
    unnamed = {spec.name for spec in layout if not spec.named}
    wb = openpyxl.load_workbook(book)
    assert set(wb.defined_names) == named
    assert len(unnamed) > len(named)  # most calculations, every Cash flow month but the first of a row
    by_name = {spec.name: spec for spec in layout}
    for spec in layout:
        if not spec.named:  # anchors are named cells of the cell's own row and column
            row, col = by_name[spec.row_anchor], by_name[spec.col_anchor]
            assert row.named and col.named and row.sheet == col.sheet == spec.sheet
            assert re.sub(r"[A-Z]+", "", row.cell) == re.sub(r"[A-Z]+", "", spec.cell)
            assert re.sub(r"[0-9]+", "", col.cell) == re.sub(r"[0-9]+", "", spec.cell)
    read = {m.group() for ws in wb.worksheets for row in ws.iter_rows() for cell in row
            if cell.data_type == "f" for m in IDENTIFIER.finditer(str(cell.value))}
    assert not read & unnamed  # every formula reads an unnamed cell by its address
    data = check_json(capsys, book)
    assert data["ok"] is True and data["findings"] == []


@needs_uno
def test_rows_and_columns_inserted_move_the_anchored_cells(capsys, anchored, tmp_path):
    plan, book = anchored
    if not book.exists():
        assert run(capsys, "generate", plan, "-o", book)[0] == 0
    ops = [{"op": "insert_rows", "sheet": "Compute", "index": 3, "count": 2},
           {"op": "insert_rows", "sheet": "Cash flow", "index": 8, "count": 1},
           {"op": "insert_rows", "sheet": "Inputs", "index": 3, "count": 1},
           {"op": "insert_columns", "sheet": "Cash flow", "index": 1, "count": 1}]
    with uno_session() as session:
        edited = session.edit(book, tmp_path / "inserted.xlsx", ops)
    data = check_json(capsys, edited)
    assert data["ok"] is True and data["findings"] == []
    recalculated = cell_values(edited)  # LibreOffice's own values, stored with the edit
    for figure in data["figures"]:
        assert math.isclose(recalculated[figure["name"]], figure["reference"], rel_tol=1e-9, abs_tol=1e-6), figure
