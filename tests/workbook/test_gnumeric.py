"""Gnumeric, a third engine, recalculates every formula cell of the templates' and random plans' books to
the value cached in it (issue 25, item 7): `ssconvert --recalc` reads the book, recalculates every formula and
writes it again; each formula cell's recalculated value must be the one budgetbook cached (numbers to 1e-9
relative or 1e-6 absolute, as Sensitivity's swings are differences of large totals; text and booleans exactly).
HyperFormula does the same (`test_js_readers.py`).

A few random examples only (each book costs about a second): the random-plan strategies reach every line item
and market kind across runs; `test_formulas_equal_reference.py` holds the cached values to the reference model.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.workbook.write import write_workbook

pytestmark = pytest.mark.skipif(shutil.which("ssconvert") is None,
                                reason="needs Gnumeric's ssconvert: apt-get install -y gnumeric")


def _differences(book, recalculated) -> tuple[int, list]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gnumeric's file has no default style: openpyxl says so
        formulas, cached = openpyxl.load_workbook(book), openpyxl.load_workbook(book, data_only=True)
        gnumeric = openpyxl.load_workbook(recalculated, data_only=True)
    count, differ = 0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                count += 1
                ours, theirs = cached[ws.title][cell.coordinate].value, gnumeric[ws.title][cell.coordinate].value
                numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (ours, theirs))
                if not (ours == theirs or numbers and math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-6)):
                    differ.append((ws.title, cell.coordinate, ours, theirs))
    return count, differ


def _recalculated(book):
    recalculated = book.with_name(book.stem + "-gnumeric.xlsx")
    subprocess.run(["ssconvert", "--recalc", str(book), str(recalculated)], check=True, capture_output=True,
                   timeout=120)
    return recalculated


def test_gnumeric_recalculates_every_formula_cell_of_every_template(tmp_path):
    for template in template_names():
        text = resolve(template)[1]
        book = write_workbook(plan_from_text(text, template), text, tmp_path / f"{template}.xlsx")
        count, differ = _differences(book, _recalculated(book))
        assert count > 100 and differ == [], (template, differ[:10])


@settings(max_examples=4, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plans())
def test_gnumeric_recalculates_every_formula_cell_of_random_plans_to_its_cached_value(tmp_path, drawn):
    plan, text = drawn
    book = write_workbook(plan, text, tmp_path / "plan.xlsx")
    count, differ = _differences(book, _recalculated(book))
    assert count > 50 and differ == [], differ[:10]
