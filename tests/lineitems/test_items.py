"""Further items: a stated cost, or quantity x unit price; the same on every market, one sheet each."""

import re

import pytest
from lineitem_case import assert_figures, plan_yaml

from budgetbook.errors import PlanError
from budgetbook.planfile.loader import plan_from_text
from budgetbook.workbook.build import build_book


def test_cost_or_quantity_times_unit_price(tmp_path):
    items = [{"id": "licences", "cost": 5000},
             {"id": "data", "label": "Data", "quantity": 40, "unit": "TB", "unit_price": 120}]
    assert_figures(tmp_path, plan_yaml(items=items), {"licences_a": 5000, "data_a": 4800, "data_b": 4800})


def test_a_label_never_takes_a_sheet_title_the_registry_holds():
    # every line item's fixed title is reserved, new ones included, without a list to keep up to date
    items = [{"id": "x", "label": "Compute", "cost": 1}, {"id": "y", "label": "contingency", "cost": 1},
             {"id": "z", "label": "Serving", "cost": 1}]
    titles = [s.title for s in build_book(plan_from_text(plan_yaml(items=items))).sheets]
    assert {"Compute (2)", "contingency (2)", "Serving (2)"} <= set(titles)
    assert len({t.lower() for t in titles}) == len(titles)


@pytest.mark.parametrize("entry, message", [
    ({"id": "x", "cost": 1, "quantity": 2, "unit_price": 3}, "give `cost`, or `quantity` and `unit_price`"),
    ({"id": "x", "quantity": 2}, "give both `quantity` and `unit_price`"),
])
def test_bad_items_are_one_line(entry, message):
    with pytest.raises(PlanError, match=re.escape(message)):
        plan_from_text(plan_yaml(items=[entry]))
