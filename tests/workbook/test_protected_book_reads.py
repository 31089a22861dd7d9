"""Protection (issue 14, item 8): every sheet protected, inputs unlocked, rows insertable; `--protect
PASSWORD` sets a password; `check`, `extract` and `show` read the protected workbook as any other."""

from __future__ import annotations

import json

import openpyxl
import pytest
from cli_run import run

from budgetbook.plan.inputs import input_cells
from budgetbook.planfile.loader import load_plan, template_text


@pytest.mark.parametrize("extra", [[], ["--protect", "s3cret"]])
def test_protected_sheets_with_inputs_unlocked_still_check(capsys, tmp_path, extra):
    book = tmp_path / "book.xlsx"
    code, out, _ = run(capsys, "generate", "finetune-13b-lora", "-o", book, *extra)
    assert code == 0
    wb = openpyxl.load_workbook(book)
    assert all(ws.protection.sheet for ws in wb.worksheets)
    assert all(not ws.protection.insertRows and not ws.protection.formatCells for ws in wb.worksheets)
    assert bool(wb["Inputs"].protection.hashValue) == bool(extra)
    for cell in input_cells(load_plan("finetune-13b-lora")):
        sheet, ref = next(iter(wb.defined_names[cell.name].destinations))
        assert wb[sheet][ref.replace("$", "")].protection.locked is False, cell.name
    formula = wb["Summary"]["C11"]
    assert formula.data_type == "f" and formula.protection.locked is True
    code, out, _ = run(capsys, "check", book, "--format", "json")
    assert code == 0 and json.loads(out)["ok"] is True
    code, out, _ = run(capsys, "extract", book)
    assert code == 0 and out == template_text("finetune-13b-lora")
