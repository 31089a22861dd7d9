"""`evaluate_workbook`: values of defined names, errors as text, blanks as None, text kept as text."""

from __future__ import annotations

import io

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName

from budgetbook.errors import WorkbookError
from budgetbook.xlsx.evaluate import evaluate_workbook


def _book() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Storage & egress"
    ws["A1"], ws["A2"], ws["A3"], ws["A4"] = "=B1*2", "empty", "=1/0", 21
    ws["A5"] = "=A4*2"
    for name, ref in {"x_blank_ref": "$A$1", "x_text": "$A$2", "x_div": "$A$3", "x_nothing": "$B$9",
                      "x_input": "$A$4", "x_double": "$A$5"}.items():
        wb.defined_names[name] = DefinedName(name, attr_text=f"'Storage & egress'!{ref}")
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def test_values_errors_blanks_and_text(capsys):
    values = evaluate_workbook(_book())
    assert values == {"x_blank_ref": 0, "x_text": "empty", "x_div": "#DIV/0!", "x_nothing": None,
                      "x_input": 21, "x_double": 42}
    assert "it/s" not in capsys.readouterr().err  # no progress bar from `formulas`


def test_missing_or_damaged_workbook_is_a_workbook_error(tmp_path):
    with pytest.raises(WorkbookError, match="no such workbook"):
        evaluate_workbook(tmp_path / "nope.xlsx")
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(WorkbookError, match="bad.xlsx"):
        evaluate_workbook(tmp_path / "bad.xlsx")


def test_formulas_rounds_numeric_cells_to_15_decimal_places():
    """A known limit of the engine (pinned so an upgrade that fixes it is noticed): tiny inputs lose precision."""
    wb = openpyxl.Workbook()
    wb.active["A1"] = 1.192092896e-07
    wb.defined_names["x_tiny"] = DefinedName("x_tiny", attr_text="Sheet!$A$1")
    buffer = io.BytesIO()
    wb.save(buffer)
    assert evaluate_workbook(buffer.getvalue())["x_tiny"] == round(1.192092896e-07, 15) != 1.192092896e-07
