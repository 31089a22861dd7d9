"""JavaScript readers open every book and read every figure (issue 25, item 7): ExcelJS and SheetJS read
every cached value; HyperFormula recalculates every formula cell to its cached value.

ExcelJS could open no budgetbook book at all ("Cannot read properties of undefined (reading
'anchors')": it matches drawing parts by their `xdr:` prefix, exceljs#2591, and openpyxl writes none);
`xlsx/drawing_prefix.py` writes them as Excel does. tests/js/read.mjs reads the books with the
versions pinned in tests/js/package-lock.json (install: `cd tests/js && npm ci`).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook

JS = Path(__file__).parents[1] / "js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None or not (JS / "node_modules" / "exceljs").is_dir(),
                                reason="needs node and the pinned readers: apt-get install -y nodejs npm && "
                                       "(cd tests/js && npm ci)")


def test_javascript_readers_read_and_recalculate_every_figure_of_every_template(tmp_path):
    books = {}
    for template in template_names():
        text = resolve(template)[1]
        plan = plan_from_text(text, template)
        books[template] = (write_workbook(plan, text, tmp_path / f"{template}.xlsx"), plan)
    done = subprocess.run([NODE, str(JS / "read.mjs"), *(str(book) for book, _ in books.values())],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    formulas = {template: sum(c.data_type == "f" for ws in openpyxl.load_workbook(book).worksheets
                              for row in ws.iter_rows() for c in row) for template, (book, _) in books.items()}
    for template, (book, plan) in books.items():
        where = {s.name: f"{s.sheet}!{s.cell.replace('$', '')}" for s in workbook_layout(plan)}
        for reader in ("exceljs", "sheetjs"):
            values = report[str(book)][reader]
            assert len(values) == formulas[template], (template, reader)  # every formula cell read, with its value
            assert all(v is not None for v in values.values()), (template, reader)
            for figure in compute_breakdown(plan).figures:
                got = values[where[figure.name]]
                assert math.isclose(got, figure.value, rel_tol=1e-9, abs_tol=1e-9), (template, reader, figure.name)
        recalculated = report[str(book)]["hyperformula"]
        assert (recalculated["cells"], recalculated["differ"]) == (formulas[template], []), template


@settings(max_examples=3, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plans())
def test_javascript_readers_read_and_hyperformula_recalculates_random_plans(tmp_path, drawn):
    """The same over random plans (every line item and market kind the strategies draw, across runs)."""
    plan, text = drawn
    book = write_workbook(plan, text, tmp_path / "plan.xlsx")
    done = subprocess.run([NODE, str(JS / "read.mjs"), str(book)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)[str(book)]
    formulas = sum(c.data_type == "f" for ws in openpyxl.load_workbook(book).worksheets
                   for row in ws.iter_rows() for c in row)
    assert len(report["exceljs"]) == len(report["sheetjs"]) == formulas
    assert (report["hyperformula"]["cells"], report["hyperformula"]["differ"]) == (formulas, [])
