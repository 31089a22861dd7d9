"""The quick cells of `openpyxl_book._quick_cell` are the cells openpyxl's own way makes, or are left to it."""

from __future__ import annotations

import pytest
from openpyxl import Workbook

from budgetbook.workbook.openpyxl_book import _quick_cell

VALUES = [None, 0, 1, -2.5, 1e300, "=SUM(A1:A2)", "=", "= not a formula?", "plain text", "", "#N/A", "#DIV/0!",
          "x" * 32_767, "x" * 32_768, "bad \x01 char", True, False]


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("value", VALUES, ids=lambda v: repr(v)[:20])
def test_a_quick_cell_is_openpyxl_s_cell_or_none(value, text):
    ws = Workbook().active
    quick = _quick_cell(ws, 3, 4, value, text)
    if isinstance(value, bool) or value in ("#N/A", "#DIV/0!") or value == "x" * 32_768 \
            or value == "bad \x01 char":
        assert quick is None and (3, 4) not in ws._cells  # openpyxl's way: a bool, an error code, clipped, refused
        return
    assert quick is not None and ws._cells[(3, 4)] is quick
    plain = Workbook().active.cell(3, 4)
    plain.value = value
    if text and isinstance(value, str):
        plain.data_type = "s"  # plan text, as `_render_sheet` writes it
    assert (quick.row, quick.column, quick.coordinate, quick.value, quick.data_type) == (
        plain.row, plain.column, plain.coordinate, plain.value, plain.data_type)
    assert quick.hyperlink is None and quick.comment is None and quick.parent is ws
