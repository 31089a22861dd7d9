"""FAST: one formula per row. Every row of a calculation or output sheet holds one R1C1 formula across
its market columns, and every Cash flow row one across its months (issue 14, item 7).

A row whose columns read differently named inputs (each market's own price) picks them with one
`CHOOSE` by the column's market number, so the audit by name still sees every input it reads.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from hypothesis import given
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.workbook.build import workbook_layout
from budgetbook.xlsx.r1c1 import r1c1


def _rows(plan) -> dict[tuple, list[tuple[str, str]]]:
    """(sheet, row, what the row computes) -> [(cell, R1C1 formula)], for rows written once per column."""
    rows: dict[tuple, list[tuple[str, str]]] = defaultdict(list)
    for spec in workbook_layout(plan):
        if spec.formula is None or re.fullmatch(r"=mkt_\w+_label", spec.formula):
            continue  # a header or "Priced on market" cell linking a live label (`=mkt_a_label`): text, not a sum
        letters, row = coordinate_from_string(spec.cell.replace("$", ""))
        month = re.search(r"_m[0-9]+$", spec.name)  # a Cash flow month (its total is another column)
        what = spec.name.removesuffix(month.group()) + " months" if month else spec.name
        what = what.removesuffix(f"_{spec.market}") if spec.market and not month else what
        rows[(spec.sheet, row, what)].append(
            (spec.cell, r1c1(spec.formula, row, column_index_from_string(letters))))
    return {key: cells for key, cells in rows.items() if len(cells) > 1}


def _inconsistent(plan) -> list[str]:
    return [f"{sheet}!{row} ({what}): " + " | ".join(f"{cell} {text}" for cell, text in cells[:3])
            for (sheet, row, what), cells in _rows(plan).items() if len({text for _, text in cells}) > 1]


@pytest.mark.parametrize("template", template_names())
def test_every_row_is_one_formula_across_its_columns(template):
    plan = plan_from_text(resolve(template)[1], template)
    rows = _rows(plan)
    assert len(rows) >= 20  # the rows held: every market row (of two markets or more) and Cash flow row
    assert _inconsistent(plan) == []


@given(plans())
def test_random_plans_have_one_formula_per_row(plan_and_text):
    assert _inconsistent(plan_and_text[0]) == []


def test_a_market_input_is_chosen_by_the_column_market_number():
    plan = plan_from_text(resolve("pretrain-7b")[1], "pretrain-7b")
    layout = {spec.name: spec for spec in workbook_layout(plan)}
    ids = [m.id for m in plan.markets]
    # the hybrid (last column) buys the pretraining run from the committed hyperscaler
    price = layout[f"cmp_pretrain_price_{ids[0]}"]
    assert price.formula == (f"=CHOOSE(C3,mkt_{ids[0]}_price_h100_sxm_used,mkt_{ids[1]}_price_h100_sxm_used,"
                             f"mkt_{ids[2]}_price_h100_sxm_used,mkt_{ids[0]}_price_h100_sxm_used)")
    assert layout[f"cmp_pretrain_price_{ids[3]}"].formula == price.formula.replace("C3", "F3", 1)
    counters = [layout[f"mno_compute_{m}"] for m in ids]
    assert [(c.cell, c.kind) for c in counters] == [("C3", "constant"), ("D3", "constant"), ("E3", "constant"),
                                                      ("F3", "constant")]
    # a row whose columns read one input needs no CHOOSE
    assert layout[f"cmp_pretrain_alloc_{ids[1]}"].formula == "=D10*D11"
    # outputs link each figure in its own column
    assert layout[f"sum_compute_{ids[2]}"].formula == "='Compute'!E" + layout[f"compute_{ids[2]}"].cell[1:]


def test_live_market_labels_leave_the_rows_one_formula():
    text = ("name: two\nmarkets:\n  - {id: a, label: \"Cloud A at $2/GPU-hour\", gpu_prices: {H100: 2}}\n"
            "  - {id: b, label: \"Cloud B at $3.00/GPU-hour\", gpu_prices: {H100: 3}}\n"
            "workloads: [{id: w, gpu: H100, ideal_gpu_hours: 100, utilization: 1.5}]\n")
    plan = plan_from_text(text, "two.yaml")
    layout = {spec.name: spec for spec in workbook_layout(plan)}
    assert layout["hdr_compute_b"].formula == "=mkt_b_label"  # the header follows the price
    assert _inconsistent(plan) == []
