"""The LibreOffice harness really recalculates and really edits like a user."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest
from libreoffice import (
    cell_values,
    error_cells,
    formulas_of,
    needs_libreoffice,
    needs_uno,
    recalculate,
    recalculated_values,
    uno_session,
)
from openpyxl.workbook.defined_name import DefinedName


def _with_stale_cache(path: Path, sheet_xml: str, formula: str, stale: str) -> None:
    """Rewrite the sheet XML so the formula's cached <v> holds a wrong number.

    openpyxl writes formula cells with an empty <v/>, which any reader would
    treat as "not calculated"; a wrong number is what a stale file looks like.
    """
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts[sheet_xml].decode()
    before = f"<f>{formula}</f><v />"
    assert before in xml, xml
    parts[sheet_xml] = xml.replace(before, f"<f>{formula}</f><v>{stale}</v>").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


def _named_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    inputs = wb.active
    inputs.title = "Inputs"
    inputs["D4"] = 10
    inputs["D5"] = 2
    compute = wb.create_sheet("Compute")
    compute["C5"] = "=a_name*b_name"
    compute["C6"] = "=C5+Inputs!D4"
    wb.create_sheet("Failed runs")["A1"] = 1
    for name, target in {
        "a_name": "Inputs!$D$4",
        "b_name": "Inputs!$D$5",
        "product": "Compute!$C$5",
        "plus_a": "Compute!$C$6",
    }.items():
        wb.defined_names[name] = DefinedName(name, attr_text=target)
    wb.save(path)
    return path


@needs_libreoffice
def test_recalculate_replaces_stale_cached_value(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Inputs"
    ws["A1"], ws["A2"], ws["A3"] = 2, 3, "=A1*A2"
    wb.defined_names["prod"] = DefinedName("prod", attr_text="Inputs!$A$3")
    book = tmp_path / "in" / "stale.xlsx"
    book.parent.mkdir()
    wb.save(book)
    _with_stale_cache(book, "xl/worksheets/sheet1.xml", "A1*A2", "999")
    assert openpyxl.load_workbook(book, data_only=True)["Inputs"]["A3"].value == 999

    out = recalculate(book, tmp_path / "out")

    assert out == tmp_path / "out" / "stale.xlsx"
    assert cell_values(out) == {"prod": 6}
    assert formulas_of(out) == {("Inputs", "A3"): "=A1*A2"}


@needs_libreoffice
def test_recalculate_reports_error_values(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "=1/0"
    ws["A2"] = "=no_such_name*2"
    ws["A3"] = '=VALUE("abc")'
    ws["A4"] = "=A1+1"
    ws["A5"] = "=SQRT(-1)"  # Err:502 inside Calc, #NUM! in Excel
    ws["A6"] = "=NA()"
    book = tmp_path / "errors.xlsx"
    wb.save(book)

    out = recalculate(book, tmp_path / "out")

    assert error_cells(out) == [
        ("Sheet", "A1", "#DIV/0!"),
        ("Sheet", "A2", "#NAME?"),
        ("Sheet", "A3", "#VALUE!"),
        ("Sheet", "A4", "#DIV/0!"),
        ("Sheet", "A5", "#VALUE!"),
        ("Sheet", "A6", "#N/A"),
    ]


@needs_libreoffice
def test_recalculated_values_reads_every_name(tmp_path):
    (tmp_path / "in").mkdir()
    book = _named_book(tmp_path / "in" / "b.xlsx")
    assert recalculated_values(book, tmp_path / "out") == {
        "a_name": 10, "b_name": 2, "product": 20, "plus_a": 30,
    }


@needs_libreoffice
def test_recalculate_refuses_to_overwrite_its_input(tmp_path):
    book = _named_book(tmp_path / "b.xlsx")
    with pytest.raises(RuntimeError, match="out_dir must differ"):
        recalculate(book, tmp_path)


@pytest.fixture(scope="module")
def uno():
    with uno_session() as session:
        yield session


@needs_uno
def test_inserted_row_moves_names_and_formulas(uno, tmp_path):
    book = _named_book(tmp_path / "names.xlsx")

    out = uno.edit(
        book,
        tmp_path / "edited.xlsx",
        [
            # 0-based: a new row 3, above the named cells C5 and C6.
            {"op": "insert_rows", "sheet": "Compute", "index": 2, "count": 1},
            {"op": "set_value", "sheet": "Inputs", "cell": "D5", "value": 1.7},
        ],
    )

    wb = openpyxl.load_workbook(out)
    assert wb.defined_names["product"].attr_text == "Compute!$C$6"
    assert wb.defined_names["plus_a"].attr_text == "Compute!$C$7"
    assert wb["Compute"]["C6"].value == "=a_name*b_name"
    assert wb["Compute"]["C7"].value == "=C6+Inputs!D4"
    assert cell_values(out) == {"a_name": 10, "b_name": 1.7, "product": 17, "plus_a": 27}
    assert error_cells(out) == []


@needs_uno
def test_typed_formulas_and_deleted_sheet(uno, tmp_path):
    book = _named_book(tmp_path / "names.xlsx")

    out = uno.edit(
        book,
        tmp_path / "edited.xlsx",
        [
            # Excel syntax, as a user types it: quoted sheet, commas.
            {"op": "set_formula", "sheet": "Compute", "cell": "C9",
             "formula": "=SUM(C5:C6)+'Failed runs'!A1"},
            {"op": "set_formula", "sheet": "Compute", "cell": "C10", "formula": "=ROUND(product/3,2)"},
            {"op": "set_formula", "sheet": "Compute", "cell": "C11", "formula": "=1/0"},
            {"op": "set_value", "sheet": "Compute", "cell": "C12", "value": "typed text"},
            {"op": "delete_sheet", "sheet": "Failed runs"},
        ],
    )

    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Inputs", "Compute"]
    assert wb["Compute"]["C9"].value == "=SUM(C5:C6)+#REF!"
    assert wb["Compute"]["C10"].value == "=ROUND(product/3,2)"
    assert wb["Compute"]["C12"].value == "typed text"
    values = openpyxl.load_workbook(out, data_only=True)["Compute"]
    assert values["C10"].value == pytest.approx(6.67)
    assert error_cells(out) == [("Compute", "C9", "#REF!"), ("Compute", "C11", "#DIV/0!")]


@needs_uno
def test_unknown_op_fails_clearly(uno, tmp_path):
    book = _named_book(tmp_path / "names.xlsx")
    with pytest.raises(RuntimeError, match="unknown op 'paint'"):
        uno.edit(book, tmp_path / "x.xlsx", [{"op": "paint", "sheet": "Inputs"}])
