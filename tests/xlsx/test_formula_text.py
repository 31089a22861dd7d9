"""Formula text: canonical spelling, references, and names in place of moved cells."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest
from libreoffice import formulas_of, needs_libreoffice, needs_uno, recalculate, uno_session
from openpyxl.workbook.defined_name import DefinedName

from budgetbook.errors import BudgetbookError
from budgetbook.xlsx.formula_text import FormulaTextError, Ref, normalize, references, to_names

# What LibreOffice 7.4 writes back after an xlsx round trip (measured by
# test_libreoffice_rewrites_as_pinned below): generated -> saved.
LIBREOFFICE_REWRITES = {
    "=SUM(C5:C7)": "=SUM(C5:C7)",
    "=ROUND(a_name*b_name,2)": "=ROUND(a_name*b_name,2)",
    "=IF(ABS(C5-C6)<=0.001,1,0)": "=IF(ABS(C5-C6)<=0.001,1,0)",
    "='Failed runs'!C5+Inputs!D4": "='Failed runs'!C5+Inputs!D4",
    "=a_name/b_name": "=a_name/b_name",
    "=AND(C5>0,C6>0)": "=AND(C5>0,C6>0)",
    "=MIN(C5:C7,a_name)": "=MIN(C5:C7,a_name)",
    "=$C$5*Inputs!$D$4": "=$C$5*Inputs!$D$4",
    "=C5*10%": "=C5*10%",
    '=IF(C5>0,"a b","Cc")': '=IF(C5>0,"a b","Cc")',
    "=C5 * (1 + C6)": "=C5 * (1 + C6)",
    "=TRUE": "=TRUE()",
    "=NOT(TRUE)": "=NOT(TRUE())",
    "=_xlfn.IFS(C5>0,1,TRUE,0)": "=_xlfn.IFS(C5>0,1,TRUE(),0)",
    "=1.0+C5": "=1+C5",
    "=1.50": "=1.5",
    "=1E+12": "=1000000000000",
    "=2.5E+3": "=2500",
    "=1E-05": "=0.00001",
    "= C5 + C6": "=C5 + C6",
    "=sum(c5:c7)": "=SUM(C5:C7)",
    "='Inputs'!D4": "=Inputs!D4",
}


def _book_with(path: Path, formulas: list[str]) -> Path:
    wb = openpyxl.Workbook()
    inputs = wb.active
    inputs.title = "Inputs"
    inputs["D4"], inputs["D5"] = 3, 4
    failed = wb.create_sheet("Failed runs")
    compute = wb.create_sheet("Compute")
    for row in (5, 6, 7):
        failed[f"C{row}"] = compute[f"C{row}"] = row - 4
    for row, formula in enumerate(formulas, start=10):
        compute[f"E{row}"] = formula
    wb.defined_names["a_name"] = DefinedName("a_name", attr_text="Inputs!$D$4")
    wb.defined_names["b_name"] = DefinedName("b_name", attr_text="Inputs!$D$5")
    wb.save(path)
    return path


@needs_libreoffice
def test_libreoffice_rewrites_as_pinned_and_normalize_undoes_it(tmp_path):
    generated = list(LIBREOFFICE_REWRITES)
    out = recalculate(_book_with(tmp_path / "rt.xlsx", generated), tmp_path / "out")

    saved = formulas_of(out)
    back = [saved[("Compute", f"E{row}")] for row in range(10, 10 + len(generated))]

    assert dict(zip(generated, back)) == LIBREOFFICE_REWRITES
    for before, after in zip(generated, back):
        assert normalize(before) == normalize(after), (before, after)


@pytest.mark.parametrize(
    "formula, canonical",
    [
        ("=SUM(C5:C7)", "SUM(C5:C7)"),
        ("= sum( $c$5:c7 )", "SUM(C5:C7)"),
        ("=SUM(C5 : C7)", "SUM(C5:C7)"),
        ("='Failed runs'!C5+Inputs!D4", "'FAILED RUNS'!C5+INPUTS!D4"),
        ("='FAILED RUNS'!c5+'Inputs'!$D$4", "'FAILED RUNS'!C5+INPUTS!D4"),
        ("='It''s'!A1", "'IT''S'!A1"),
        ("='A1'!B2", "'A1'!B2"),  # a sheet named like a cell keeps its quotes
        ("=1E+12", "1000000000000"),
        ("=1.0*C5", "1*C5"),
        ("=50%", "0.5"),
        ("=C5*10%", "C5*0.1"),
        ("=-C5%", "-C5%"),  # percent of a reference stays an operator
        ("=TRUE()", "TRUE"),
        ("=IF(x,TRUE(),FALSE())", "IF(X,TRUE,FALSE)"),
        ("=_xlfn._xlws.SORT(C5:C7)", "SORT(C5:C7)"),
        ('=IF(a_name>0,"Keep  Case",b_name)', 'IF(A_NAME>0,"Keep  Case",B_NAME)'),
        ("=A1:B5 B2:C3", "A1:B5 B2:C3"),  # the space is the intersection operator
        ("=SUM(C5:C7) + #REF!", "SUM(C5:C7)+#REF!"),
        ("=Compute!#REF!*2", "COMPUTE!#REF!*2"),
        ("={1,2;3,4}", "{1,2;3,4}"),
        ("C5+1", "C5+1"),  # no leading =
    ],
)
def test_normalize(formula, canonical):
    assert normalize(formula) == canonical


def test_normalize_keeps_real_differences():
    assert normalize("=C5+C6") != normalize("=C5-C6")
    assert normalize('="a b"') != normalize('="A B"')
    assert normalize('="a b"') != normalize('="ab"')
    assert normalize("=SUM(C5:C7)") != normalize("=SUM(C5:C8)")
    assert normalize("=0.1") != normalize("=0.01")


def test_normalize_with_sheet_qualifies_local_references():
    assert normalize("=C5+a_name", "Compute") == normalize("=Compute!$C$5+A_NAME")
    assert normalize("=C5+a_name", "Compute") == "COMPUTE!C5+A_NAME"


def test_references():
    refs = references("=ROUND(a_name*'Failed runs'!$C$5,2)+SUM(c5:C7)+Compute!#REF!+\"C9\"")
    assert refs == [
        Ref(None, name="a_name"),
        Ref("Failed runs", cell="C5"),
        Ref(None, cell="C5:C7"),
        Ref("Compute", cell="#REF!"),
    ]
    assert [r.is_range for r in refs] == [False, False, True, False]
    assert references("=TRUE+1") == []
    assert references("=SUM(C:C)+LOG10") == [Ref(None, cell="C:C"), Ref(None, cell="LOG10")]


def test_unreadable_formula_is_a_budgetbook_error():
    with pytest.raises(FormulaTextError, match="cannot read formula") as caught:
        normalize("=A1#")
    assert isinstance(caught.value, BudgetbookError)


NAMES = {
    ("COMPUTE", "C5"): "gpu_hours",
    ("COMPUTE", "C6"): "rate",
    ("COMPUTE", "C7"): "alloc_x",
    ("COMPUTE", "C8"): "price_y",
    ("INPUTS", "D4"): "mfu",
}


def test_to_names_replaces_named_cells():
    assert to_names("=C7*C8", "Compute", NAMES) == "=ALLOC_X*PRICE_Y"
    assert to_names("=Compute!$C$7*'Inputs'!D4", "Failed runs", NAMES) == "=ALLOC_X*MFU"


def test_to_names_ranges_and_unnamed_cells():
    assert to_names("=SUM(C5:C7)", "Compute", NAMES) == "=SUM((GPU_HOURS,RATE,ALLOC_X))"
    # C9 has no name, so the range cannot be spelled as names.
    assert to_names("=SUM(C5:C9)", "Compute", NAMES) == "=SUM(COMPUTE!C5:C9)"
    assert to_names("=C7+C20", "Compute", NAMES) == "=ALLOC_X+COMPUTE!C20"
    assert to_names("=a_name+Inputs!D5", "Compute", NAMES) == "=A_NAME+INPUTS!D5"


def test_to_names_output_is_stable_under_normalize():
    text = to_names("=SUM(C5:C7)+C20*10%", "Compute", NAMES)
    assert normalize(text) == text.lstrip("=")


def test_to_names_sees_through_moved_rows():
    generated = to_names("=C7*C8", "Compute", NAMES)
    moved = {(s, f"C{int(c[1:]) + 1}"): n for (s, c), n in NAMES.items() if s == "COMPUTE"}
    assert to_names("=$C$8*C9", "Compute", moved) == generated
    assert to_names("=$C$8*C10", "Compute", moved) != generated


def test_openpyxl_expands_shared_formulas(tmp_path):
    """Excel saves a filled-right formula once, as a shared formula; openpyxl expands it on read."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Compute"
    for col in "CDE":
        ws[f"{col}3"], ws[f"{col}4"], ws[f"{col}5"] = 2, 5, f"={col}3*{col}4"
    path = tmp_path / "shared.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    xml = xml.replace('<c r="C5"><f>C3*C4</f><v /></c>',
                      '<c r="C5"><f t="shared" ref="C5:E5" si="0">C3*C4</f><v>10</v></c>')
    for col in "DE":
        xml = xml.replace(f'<c r="{col}5"><f>{col}3*{col}4</f><v /></c>',
                          f'<c r="{col}5"><f t="shared" si="0"/><v>10</v></c>')
    assert xml.count('t="shared"') == 3
    parts["xl/worksheets/sheet1.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)

    back = openpyxl.load_workbook(path)["Compute"]

    assert [back[c].value for c in ("C5", "D5", "E5")] == ["=C3*C4", "=D3*D4", "=E3*E4"]
    cells = {("COMPUTE", "D3"): "hours", ("COMPUTE", "D4"): "price"}
    assert to_names(back["D5"].value, "Compute", cells) == "=HOURS*PRICE"


@needs_uno
def test_formula_after_libreoffice_row_insert_matches_by_names(tmp_path):
    wb = openpyxl.Workbook()
    compute = wb.active
    compute.title = "Compute"
    compute["C7"], compute["C8"] = 3, 4
    compute["C9"] = "=C7*C8+SUM(C7:C8)"
    names = {"alloc_x": "C7", "price_y": "C8", "cost": "C9"}
    for name, cell in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=f"Compute!$C${cell[1:]}")
    book = tmp_path / "book.xlsx"
    wb.save(book)
    generated = {("COMPUTE", cell): name for name, cell in names.items()}

    with uno_session() as lo:
        out = lo.edit(book, tmp_path / "moved.xlsx",
                      [{"op": "insert_rows", "sheet": "Compute", "index": 0, "count": 2}])

    moved_wb = openpyxl.load_workbook(out)
    moved = {}
    for name in names:
        (sheet, ref), = moved_wb.defined_names[name].destinations
        moved[(sheet.upper(), ref.replace("$", ""))] = name
    assert moved[("COMPUTE", "C11")] == "cost"
    saved = moved_wb["Compute"]["C11"].value
    assert saved == "=C9*C10+SUM(C9:C10)"
    assert to_names(saved, "Compute", moved) == to_names("=C7*C8+SUM(C7:C8)", "Compute", generated)
    assert to_names(saved, "Compute", moved) == "=ALLOC_X*PRICE_Y+SUM((ALLOC_X,PRICE_Y))"
