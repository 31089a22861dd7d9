"""pandas with the calamine engine (a Rust reader, not openpyxl) reads every figure of the templates' and random
plans' books as its cached value, equal to the reference model (issue 25, item 7): a data team's pipeline that
loads a budgetbook file with `pandas.read_excel(..., engine="calamine")` gets the numbers finance sees.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from openpyxl.utils.cell import coordinate_to_tuple
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook

pd = pytest.importorskip("pandas")
pytest.importorskip("python_calamine", reason="needs python-calamine (the test extras)")


def _figures_read(book, plan) -> int:
    sheets = pd.read_excel(book, sheet_name=None, engine="calamine", header=None)
    where = {s.name: (s.sheet, s.cell.replace("$", "")) for s in workbook_layout(plan)}
    figures = compute_breakdown(plan).figures
    for figure in figures:
        sheet, cell = where[figure.name]
        row, col = coordinate_to_tuple(cell)
        got = sheets[sheet].iat[row - 1, col - 1]
        assert math.isclose(float(got), figure.value, rel_tol=1e-9, abs_tol=1e-9), (figure.name, got, figure.value)
    return len(figures)


@pytest.mark.parametrize("template", template_names())
def test_pandas_calamine_reads_every_figure_of_a_template(tmp_path, template):
    text = resolve(template)[1]
    plan = plan_from_text(text, template)
    assert _figures_read(write_workbook(plan, text, tmp_path / f"{template}.xlsx"), plan) >= 10


@settings(max_examples=3, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plans())
def test_pandas_calamine_reads_every_figure_of_random_plans(tmp_path, drawn):
    plan, text = drawn
    assert _figures_read(write_workbook(plan, text, tmp_path / "plan.xlsx"), plan) > 0
