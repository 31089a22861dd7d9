"""LibreOffice Calc, the independent oracle: its recalculated workbook equals the reference model."""

from __future__ import annotations

import math

import openpyxl
import pytest
from libreoffice import error_cells, needs_libreoffice, recalculate

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown
from budgetbook.sheetkit.embed import read_embedded_plan
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

pytestmark = needs_libreoffice


@pytest.mark.parametrize("template", template_names())
def test_libreoffice_agrees_with_reference(template, tmp_path):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    (tmp_path / "in").mkdir()
    book = write_workbook(plan, text, tmp_path / "in" / f"{template}.xlsx")
    saved = recalculate(book, tmp_path / "out")
    assert error_cells(saved) == []
    wb = openpyxl.load_workbook(saved, data_only=True)
    where = {s.name: (s.sheet, s.cell) for s in workbook_layout(plan)}
    value = lambda name: wb[where[name][0]][where[name][1]].value  # noqa: E731
    for figure in compute_breakdown(plan).figures:
        got = value(figure.name)
        assert isinstance(got, (int, float)), f"{figure.name}: {got!r}"
        assert math.isclose(got, figure.value, rel_tol=1e-9, abs_tol=1e-9), \
            f"{figure.name}: LibreOffice {got!r} != reference {figure.value!r}"
    assert value("checks_ok") is True
    # every defined name survives the save, still workbook-scoped
    assert set(where) <= set(wb.defined_names)
    # the embedded plan survives a LibreOffice save, byte for byte
    formulas_wb = openpyxl.load_workbook(saved)
    assert read_embedded_plan(formulas_wb) == (1, text)
    assert formulas_wb["_budgetbook"].sheet_state == "hidden"
    # and `formulas` reads LibreOffice's file the same way
    assert evaluate_workbook(saved)["checks_ok"] is True
