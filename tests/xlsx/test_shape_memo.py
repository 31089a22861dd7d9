"""`shape_of` with a memo (templates by formula skeleton, references resolved once) equals `shape_of` without.

The memo is what lets `check` tokenize a row of `=C8/wl_mfu`, `=D8/wl_mfu`, ... once
(`shapes._templated`); these tests hold its shapes, areas and refusals to the plain path's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import openpyxl
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.workbook.defined_name import DefinedName

from budgetbook.xlsx import shapes
from budgetbook.xlsx.cell_grid import CellGrid, Unsupported

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "review"))
from test_check_at_scale import PIECES, portfolio_book  # noqa: E402


def outcome(formula: str, sheet: str, grid: CellGrid, memo: shapes.ShapeMemo | None) -> object:
    try:
        return shapes.shape_of(formula, sheet, grid, memo)
    except Unsupported as exc:
        return ("Unsupported", str(exc))


def test_a_portfolio_books_shapes_are_the_same_with_the_memo(tmp_path):
    grid = CellGrid(openpyxl.load_workbook(portfolio_book(tmp_path, 8, 3)))
    memo = shapes.ShapeMemo()
    for (sheet, _, _), formula in grid.formulas.items():
        assert outcome(formula, sheet, grid, memo) == outcome(formula, sheet, grid, None), formula
    assert len(memo.templates) < len(grid.formulas) / 5  # most cells share a skeleton with others


def small_grid() -> CellGrid:
    wb = openpyxl.Workbook()
    wb.active.title = "Sheet"
    for title in ("Inputs", "Storage & egress", "Bob's"):
        wb.create_sheet(title)
    wb["Inputs"]["D4"] = 1
    for name, ref in (("wl_mfu", "Inputs!$D$4"), ("x.y", "Inputs!$D$5:$D$9"), ("_n1", "Sheet!$A$1"),
                      ("cols", "Inputs!$B:$C")):
        wb.defined_names[name] = DefinedName(name, attr_text=ref)
    return CellGrid(wb)


GRID = small_grid()
MEMO = shapes.ShapeMemo()  # shared across examples: templates learned on one formula serve others


@settings(max_examples=3000)
@given(st.lists(st.sampled_from([*PIECES, "cols", "SUM(C5:C9)", "D12", "$AB$107", "m12"]), min_size=1, max_size=12),
       st.integers(1, 999))
def test_random_formulas_shape_the_same_with_the_memo(pieces, bump):
    formula = "=" + "".join(pieces)
    other = shapes._DIGITS.sub(lambda m: str(int(m.group()) + bump), formula)  # same skeleton, other digits
    for text in (formula, other):
        assert outcome(text, "Sheet", GRID, MEMO) == outcome(text, "Sheet", GRID, None), text


def test_plan_formulas_gives_each_cell_the_plain_paths_shape_and_areas(tmp_path):
    """plan_formulas reads all the formulas' digit runs in one pass and a cell's row straight from its run
    (`ShapeMemo.fill`); each cell's shape text and areas are still the plain path's."""
    grid = CellGrid(openpyxl.load_workbook(portfolio_book(tmp_path, 8, 3)))
    plans = shapes.plan_formulas(grid)
    assert list(plans) == list(grid.formulas)
    for cell, formula in grid.formulas.items():
        assert (plans[cell].shape.text, plans[cell].targets) == shapes.shape_of(formula, cell[0], grid), formula
    by_text = {plan.shape.text: plan.shape for plan in plans.values()}
    assert all(by_text[plan.shape.text] is plan.shape for plan in plans.values())  # one Shape per text


def test_plan_formulas_of_random_formulas_equal_the_plain_path():
    wb = openpyxl.Workbook()
    wb.active.title = "Sheet"
    for title in ("Inputs", "Storage & egress", "Bob's"):
        wb.create_sheet(title)
    for name, ref in (("wl_mfu", "Inputs!$D$4"), ("x.y", "Inputs!$D$5:$D$9"), ("_n1", "Sheet!$A$1")):
        wb.defined_names[name] = DefinedName(name, attr_text=ref)
    import random

    rng = random.Random(7)
    pieces = [p for p in PIECES if p not in (" ", ":", "A:A", "3:5", "{1,2}", "[x]", "@", "!", "'")]
    written = 0
    for row in range(1, 400):
        formula = "=" + "".join(rng.choice([*pieces, "D12", "$AB$107", "'Bob''s'!C0", "Inputs!E9999999"])
                                for _ in range(rng.randint(1, 6)))
        try:
            shapes.shape_of(formula, "SHEET", CellGrid(wb))
        except Unsupported:
            continue
        wb["Sheet"].cell(row, 1).value = formula
        written += 1
    grid = CellGrid(wb)
    assert written > 50
    plans = shapes.plan_formulas(grid)
    for cell, formula in grid.formulas.items():
        assert (plans[cell].shape.text, plans[cell].targets) == shapes.shape_of(formula, cell[0], grid), formula
