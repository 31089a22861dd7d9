"""`evaluate_fast` (one compilation per formula shape) equals the ExcelModel path on every workbook we make."""

from __future__ import annotations

import datetime as dt
import io
import math

import openpyxl
import pytest
from hypothesis import given, settings
from openpyxl.workbook.defined_name import DefinedName
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.workbook.build import build_workbook
from budgetbook.xlsx.evaluate import evaluate_with_model, evaluate_workbook
from budgetbook.xlsx.fasteval import Unsupported, evaluate_fast


def assert_same(fast: dict, slow: dict) -> None:
    assert fast.keys() == slow.keys()
    for name, want in slow.items():
        got = fast[name]
        numeric = (int, float)
        if isinstance(want, numeric) and not isinstance(want, bool):
            assert isinstance(got, numeric) and not isinstance(got, bool), f"{name}: {got!r} != {want!r}"
            assert got == want or math.isclose(got, want, rel_tol=1e-12), f"{name}: {got!r} != {want!r}"
        else:
            assert type(got) is type(want) and got == want, f"{name}: {got!r} != {want!r}"


def _bytes(wb) -> bytes:
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def _template_book(template: str = "pretrain-7b"):
    source, text = resolve(template)
    return build_workbook(plan_from_text(text, source), text, dt.date(2026, 1, 1))


def _both(data: bytes) -> dict:
    fast, slow = evaluate_fast(data), evaluate_with_model(data)
    assert_same(fast, slow)
    return fast


@pytest.mark.parametrize("template", template_names())
def test_templates(template):
    values = _both(_bytes(_template_book(template)))
    assert values["checks_ok"] is True


@settings(max_examples=5)
@given(plans())
def test_random_plans(plan_and_text):
    plan, text = plan_and_text
    _both(_bytes(build_workbook(plan, text, dt.date(2026, 1, 1))))


def _cell(wb, name):
    sheet, cell = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][cell.replace("$", "")]


def _formula_names(wb, sheet_title):
    return [n for n, d in wb.defined_names.items()
            if next(iter(d.destinations))[0] == sheet_title
            and str(_cell(wb, n).value).startswith("=")]


# the edits below on the smallest template with two markets: ExcelModel takes 3 s on it, 12 s on pretrain-7b
EDITED = "finetune-13b-lora"
A, B = "hyperscaler_on_demand", "decentralized_market"


def test_formula_changed_to_division_by_zero_and_a_typed_number():
    wb = _template_book(EDITED)
    _cell(wb, f"compute_{A}").value = "=1/0"
    _cell(wb, f"compute_{B}").value = 12345.678
    values = _both(_bytes(wb))
    assert values[f"compute_{A}"] == "#DIV/0!"
    assert values[f"total_{A}"] == "#DIV/0!"
    assert values[f"compute_{B}"] == 12345.678


def test_reference_to_new_cells_text_and_errors():
    wb = _template_book(EDITED)
    ws = wb["Compute"]
    ws["Z99"] = 7.25
    ws["Z100"] = "text"
    target = _cell(wb, f"compute_{A}")
    target.value = f"={target.value[1:]}+Z99+Z98"  # Z98 is empty
    other = _cell(wb, f"compute_{B}")
    other.value = "=Z100*2"
    values = _both(_bytes(wb))
    assert values[f"compute_{B}"] == "#VALUE!"
    third = _cell(wb, f"cmp_alloc_{A}")  # on Compute too: its Z cells are those above
    third.value = "=SUM(Z98:Z100)+MAX(Z99,1)+no_such_thing_here"
    with pytest.raises(Unsupported):  # an undefined name: left to ExcelModel
        evaluate_fast(_bytes(wb))
    assert evaluate_workbook(_bytes(wb))[f"cmp_alloc_{A}"] == evaluate_with_model(_bytes(wb))[f"cmp_alloc_{A}"]
    third.value = "=SUM(Z98:Z100)+MAX(Z99,1)+IF(Z99>1,ABS(-Z99),MIN(Z98:Z99))"
    values = _both(_bytes(wb))
    assert values[f"cmp_alloc_{A}"] == pytest.approx(7.25 + 7.25 + 7.25)


def test_deleted_sheet_gives_ref_errors():
    wb = _template_book(EDITED)
    del wb["Compute"]
    values = _both(_bytes(wb))
    assert values[f"compute_{A}"] == "#REF!"
    assert values[f"total_{A}"] == "#REF!"


def test_cycles_have_no_value():
    """One book, two cycles: a cell reading itself on one market, two cells reading each other on the other."""
    wb = _template_book(EDITED)
    first = _cell(wb, f"compute_{A}")
    first.value = f"={first.coordinate}+1"
    one, two = _cell(wb, f"compute_{B}"), _cell(wb, f"cmp_alloc_{B}")  # both on Compute
    one.value = f"={two.coordinate}+1"
    two.value = f"={one.coordinate}*2"
    values = _both(_bytes(wb))
    assert values[f"compute_{A}"] is None and values[f"compute_{B}"] is None
    assert values[f"total_{A}"] is None and values[f"total_{B}"] is None  # each reads a cycle
    assert values[f"people_{A}"] is not None


def test_small_book_values_errors_blanks_and_text():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Storage & egress"
    ws["A1"], ws["A2"], ws["A3"], ws["A4"] = "=B1*2", "empty", "=1/0", 21
    ws["A5"], ws["A6"], ws["A7"] = "=A4*2", True, "=AND(A6,A4>1)"
    ws["A8"], ws["A9"] = "=A2&\"!\"", "=SUM(A4:A6)+A4/3"
    names = {"x_blank_ref": "$A$1", "x_text": "$A$2", "x_div": "$A$3", "x_nothing": "$B$9",
             "x_input": "$A$4", "x_double": "$A$5", "x_bool": "$A$6", "x_and": "$A$7", "x_concat": "$A$8",
             "x_sum": "$A$9"}
    for name, ref in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=f"'Storage & egress'!{ref}")
    values = _both(_bytes(wb))
    assert values["x_blank_ref"] == 0 and values["x_nothing"] is None and values["x_and"] is True


@pytest.mark.parametrize("formula", ["=ROW()", "=COUNTBLANK(A:A)", "=SUM(A:A*2)", "=SUM(1/A:A)", "=A:A+1",
                                     "=A1 A2", "=INDIRECT(\"A1\")", "=[1]Sheet!A1", "=SUM(A1:A2:A3)"])
def test_unsupported_falls_back(formula):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["B1"] = 1, 2, formula
    wb.defined_names["x"] = DefinedName("x", attr_text="Sheet!$B$1")
    with pytest.raises(Unsupported):
        evaluate_fast(_bytes(wb))


def test_array_formula_falls_back():
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"] = 1, 2
    ws["B1"] = ArrayFormula("B1", "=SUM(A1:A2*2)")
    wb.defined_names["x"] = DefinedName("x", attr_text="Sheet!$B$1")
    with pytest.raises(Unsupported):
        evaluate_fast(_bytes(wb))
    assert evaluate_workbook(_bytes(wb)) == evaluate_with_model(_bytes(wb))


def test_accepts_a_workbook_object():
    wb = _template_book("finetune-13b-lora")
    assert_same(evaluate_fast(wb), evaluate_with_model(_bytes(wb)))


def _whole_column_book(formula: str) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A4"], ws["B1"], ws["B3"], ws["C1"], ws["C2"] = 1, 2.5, 4, "text", 7, True, True
    ws["E6"] = formula
    wb.defined_names["x"] = DefinedName("x", attr_text="Sheet!$E$6")
    return _bytes(wb)


@pytest.mark.parametrize(("formula", "value"), [
    ("=SUM(A:A)", 7.5), ("=SUM($A:$B)+1", 15.5), ("=COUNT(A:A)", 3), ("=COUNTA(B:B)", 2),
    ("=AVERAGE(A:A)", 2.5), ("=MAX(A:A)", 4), ("=MIN(2:2)", 2.5), ("=PRODUCT(A:A)", 10), ("=AND(C:C)", True),
    ("=OR(C:C,FALSE)", True), ("=SUM(Sheet!A:A,3)", 10.5), ("=SUM(A1:A3,'Sheet'!$A:$A)", 11), ("=SUM(E:E)", None),
    ("=SUM(Nowhere!A:A)", "#REF!"),
])
def test_whole_columns_given_to_a_blank_blind_function_are_cut_to_the_used_rows(formula, value):
    """No fallback, and the full column's value: the same as the explicit range ExcelModel builds for it."""
    data = _whole_column_book(formula)
    assert evaluate_fast(data)["x"] == value
    bounded = formula
    for whole, part in (("$A:$A", "$A1:$A20"), ("A:A", "A1:A20"), ("$A:$B", "$A1:$B20"), ("2:2", "A2:T2"),
                        ("C:C", "C1:C20"), ("B:B", "B1:B20"), ("E:E", "E1:E20")):
        bounded = bounded.replace(whole, part)
    spelled_out = _whole_column_book(bounded)
    assert evaluate_with_model(spelled_out)["x"] == value


def test_whole_column_sum_equals_excelmodel_on_the_full_column():
    data = _whole_column_book("=SUM(A:A)+COUNT(1:1)")
    _both(data)


@pytest.mark.parametrize("definition", ["Sheet!$A:$A", "'Sheet'!$1:$2"])
def test_a_name_of_whole_columns_is_cut_too(definition):
    def book(name_text: str) -> bytes:
        wb = openpyxl.load_workbook(io.BytesIO(_whole_column_book("=SUM(col)+COUNT(col,1)")))
        wb.defined_names["col"] = DefinedName("col", attr_text=name_text)
        return _bytes(wb)

    fast = evaluate_fast(book(definition))
    spelled_out = book(definition.replace("$A:$A", "$A$1:$A$20").replace("$1:$2", "$A$1:$T$2"))
    assert fast == evaluate_with_model(spelled_out)
    assert fast["col"] == 1  # a range name's value is its top-left cell, cut or not


def test_a_name_of_whole_columns_in_arithmetic_falls_back():
    wb = openpyxl.load_workbook(io.BytesIO(_whole_column_book("=SUM(col*2)")))
    wb.defined_names["col"] = DefinedName("col", attr_text="Sheet!$A:$A")
    with pytest.raises(Unsupported):
        evaluate_fast(_bytes(wb))
