"""Every formula cell carries its computed value (issue 14, item 5): readers that do not recalculate
(pandas, previews) see the figures, they equal the reference, and LibreOffice's recalculation agrees."""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import zipfile

import openpyxl
import pandas as pd
import pytest
from libreoffice import needs_libreoffice, recalculate_many

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.cached import cached_value, save_with_values
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.cell_grid import col_index

DAY = dt.date(2026, 1, 1)


def _write(template: str, folder):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    folder.mkdir(exist_ok=True)
    return plan, write_workbook(plan, text, folder / f"{template}.xlsx", DAY)


def _formula_cells(book) -> dict[tuple[str, str], object]:
    """{(sheet, cell): cached value} of every formula cell, as openpyxl reads the stored values."""
    formulas = openpyxl.load_workbook(book)
    values = openpyxl.load_workbook(book, data_only=True)
    return {(ws.title, cell.coordinate): values[ws.title][cell.coordinate].value
            for ws in formulas.worksheets for row in ws.iter_rows() for cell in row if cell.data_type == "f"}


@pytest.mark.parametrize("template", template_names())
def test_every_formula_cell_has_a_value_and_pandas_reads_the_reference(template, tmp_path):
    plan, book = _write(template, tmp_path / "in")
    cells = _formula_cells(book)
    assert len(cells) > 50
    assert [key for key, value in cells.items() if value is None] == []
    with zipfile.ZipFile(book) as archive:  # every value cached: no recalculation (and no "Save changes?") on open
        calc = re.findall(rb"<calcPr[^>]*>", archive.read("xl/workbook.xml"))
        assert calc == [b'<calcPr calcId="191029" />']
    where = {spec.name: (spec.sheet, spec.cell) for spec in workbook_layout(plan)}
    frames = pd.read_excel(book, sheet_name=None, header=None)
    for figure in compute_breakdown(plan).figures:
        sheet, cell = where[figure.name]
        letters = cell.rstrip("0123456789")
        got = frames[sheet].iat[int(cell[len(letters):]) - 1, col_index(letters) - 1]
        assert math.isclose(float(got), figure.value, rel_tol=1e-12, abs_tol=1e-9), \
            f"{figure.name}: pandas reads {got!r}, the reference says {figure.value!r}"


def _odd_book():
    """Formulas whose values need each `t=`: error, boolean, text with markup and an escape, number."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Odd & <sheet>"
    ws["A1"] = 0
    ws["A2"] = "=1/A1"
    ws["A3"] = "=A1=0"
    ws["A4"] = '="a<b & c_x000A_"'
    ws["A5"] = "=A1+0.1+0.2"
    ws["A6"] = '=IF(A3,"","x")'
    ws["A7"] = "=A1>1"
    return wb


def test_values_of_every_type_are_cached_with_their_type(tmp_path):
    path = tmp_path / "odd.xlsx"
    path.write_bytes(save_with_values(_odd_book()))
    ws = openpyxl.load_workbook(path, data_only=True).active
    # openpyxl reads stored text raw: `_x005F_` is the escape Excel and LibreOffice decode (and write)
    assert [ws[f"A{r}"].value for r in range(2, 6)] == ["#DIV/0!", True, "a<b & c_x005F_x000A_", 0.1 + 0.2]
    assert ws["A7"].value is False
    with zipfile.ZipFile(path) as archive:
        xml = archive.read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="A2" t="e"><f>1/A1</f><v>#DIV/0!</v></c>' in xml
    assert '<c r="A3" t="b"><f>A1=0</f><v>1</v></c>' in xml
    assert '<v>a&lt;b &amp; c_x005F_x000A_</v>' in xml
    assert cached_value(float("inf")) == ("e", "#NUM!")
    assert cached_value(None) is None


@needs_libreoffice
def test_cached_values_are_what_libreoffice_recalculates(tmp_path):
    books = [_write(template, tmp_path / "in")[1] for template in template_names()]
    odd = tmp_path / "in" / "odd.xlsx"
    odd.write_bytes(save_with_values(_odd_book()))
    ours = {book.stem: _formula_cells(book) for book in [*books, odd]}
    for saved in recalculate_many([*books, odd], tmp_path / "out"):
        theirs = openpyxl.load_workbook(saved, data_only=True)
        for (sheet, cell), value in ours[saved.stem].items():
            other = theirs[sheet][cell].value
            if isinstance(value, float) or isinstance(other, float):
                assert math.isclose(value, other, rel_tol=1e-12, abs_tol=1e-9), (saved.stem, sheet, cell, value, other)
            else:
                assert value == other or (value, other) == ("", None), (saved.stem, sheet, cell, value, other)


def test_a_book_with_a_cell_left_uncached_still_recalculates_on_open(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, '=INDIRECT("A1")*2'  # no evaluator here answers INDIRECT
    wb.calculation.fullCalcOnLoad = True
    with zipfile.ZipFile(io.BytesIO(save_with_values(wb))) as archive:
        assert b'fullCalcOnLoad="1"' in archive.read("xl/workbook.xml")
    complete = save_with_values(_odd_book())
    with zipfile.ZipFile(io.BytesIO(complete)) as archive:
        assert b"fullCalcOnLoad" not in archive.read("xl/workbook.xml")
