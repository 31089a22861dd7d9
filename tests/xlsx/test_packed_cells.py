"""`PackedCells`, `Places` and `CellStore.texts`: answers as the plain structures give them (xlsx/cell_grid.py,
sheetkit/grid.py, xlsx/lean_book.py).

The evaluator's settled results and the blueprint's places are read as dicts are; here they are held
to a plain dict built from the same cells, on random keys and values (every kind an evaluation gives:
numbers, NaN, text, booleans, errors, None for a formula without a value).
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from budgetbook.sheetkit.grid import Blueprint
from budgetbook.xlsx.cell_grid import MAX_COL, MAX_ROW, PackedCells
from budgetbook.xlsx.lean_book import CellStore

SHEETS = ("INPUTS", "CASH FLOW", "SUMMARY")
keys = st.tuples(st.sampled_from(SHEETS), st.integers(1, MAX_ROW), st.integers(1, MAX_COL))
values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5), st.booleans(),
                   st.none(), st.sampled_from(["#DIV/0!", "#REF!"]), st.integers(-10**6, 10**6))


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


@settings(max_examples=60)
@given(st.dictionaries(keys, values, max_size=60), st.lists(keys, max_size=20))
def test_packed_cells_answer_as_the_dict(cells, probes):
    held = {key: value for key, value in cells.items() if key[0] != "SUMMARY"}  # SUMMARY: a sheet not held
    packed = PackedCells(held, {sheet: n for n, sheet in enumerate(SHEETS[:2])})
    assert len(packed) == len(held)
    for key in [*cells, *probes, ("NO SUCH SHEET", 1, 1)]:
        assert (key in packed) == (key in held), key
        assert _same(packed.get(key, "absent"), held.get(key, "absent")), key
        if key in held:
            assert _same(packed[key], held[key]), key


def test_packed_cells_keep_the_corners_apart():
    """The largest row and column of one sheet, and the first cell of the next, are three keys."""
    cells = {("A", MAX_ROW, MAX_COL): 1.5, ("B", 1, 1): "x", ("A", 1, MAX_COL): None, ("A", MAX_ROW, 1): -0.0}
    packed = PackedCells(cells, {"A": 0, "B": 1})
    assert [packed[key] for key in cells] == [1.5, "x", None, -0.0]
    assert math.copysign(1, packed[("A", MAX_ROW, 1)]) == -1
    assert ("A", MAX_ROW - 1, MAX_COL) not in packed and ("B", 1, 2) not in packed


@settings(max_examples=30)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, MAX_ROW), st.integers(1, MAX_COL)), max_size=40,
                unique=True))
def test_places_answer_as_the_cells_named(cells):
    book = Blueprint("places", lean=True)  # names without cells
    sheets = [book.sheet(title, "calc") for title in ("Inputs", "Compute", "Cash flow")]
    want = {}
    for n, (tab, row, col) in enumerate(cells):
        name = f"cell_{n}"
        book.name(name, sheets[tab], row, col, "calc")
        want[name] = (sheets[tab], row, col)
    assert dict(book.where) == want and len(book.where) == len(want)
    assert sorted(want, key=book.where.packed) == sorted(want, key=lambda name: cells[int(name[5:])])


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(1, 50), st.integers(1, 20),
                          st.sampled_from(["=A1+1", "=text typed", "label", "", " padded ", 1.5, True, None]),
                          st.sampled_from(["f", "s", "n", "b", "e", "str"])), max_size=40))
def test_a_sheets_texts_are_its_cells_holding_text_not_formulas(cells):
    """`CellStore.texts` (the structure audit's labels) is `plain` filtered, told without a tuple a cell."""
    store = CellStore()
    for row, col, value, data_type in cells:
        store.put(row, col, value, data_type)
    want = [(row, col, value) for row, col, value, kind in store.plain() if kind != "f" and isinstance(value, str)]
    assert list(store.texts()) == want
