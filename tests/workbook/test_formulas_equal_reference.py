"""The workbook's formulas, evaluated by `formulas`, equal the reference model on every figure."""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import time

import openpyxl
import pytest
from hypothesis import given
from lineitem_case import assert_cash_flow_matches_reference
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.planning.fit_book import sheet_rows as fit_rows
from budgetbook.reference import compute_breakdown
from budgetbook.sheetkit.embed import read_embedded_plan
from budgetbook.workbook.build import build_workbook, workbook_layout
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

REL = 1e-9


def assert_matches_reference(plan, values: dict) -> None:
    errors = {k: v for k, v in values.items() if isinstance(v, str) and v.startswith("#")}
    assert not errors, f"error values: {errors}"
    for figure in compute_breakdown(plan).figures:
        got = values.get(figure.name)
        assert isinstance(got, (int, float)) and not isinstance(got, bool), f"{figure.name}: {got!r}"
        assert math.isclose(got, figure.value, rel_tol=REL, abs_tol=1e-9), \
            f"{figure.name}: workbook {got!r} != reference {figure.value!r}"
    assert values["checks_ok"] is True
    assert_cash_flow_matches_reference(plan, values)
    for name, _key, _market, _label, expected in fit_rows(plan):  # the Fit sheet's live rows, where it has one
        assert math.isclose(values[name], expected, rel_tol=REL, abs_tol=1e-6), f"{name}: {values[name]!r}"


def _xlsx_bytes(plan, text) -> bytes:
    buffer = io.BytesIO()
    build_workbook(plan, text, dt.date(2026, 1, 1)).save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("template", template_names())
def test_template_workbook_equals_reference(template, tmp_path):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    out = write_workbook(plan, text, tmp_path / f"{template}.xlsx")
    started = time.perf_counter()
    values = evaluate_workbook(out)
    assert time.perf_counter() - started < 10  # about 1 s measured; generous for a loaded CI box
    assert_matches_reference(plan, values)
    assert set(values) == {spec.name for spec in workbook_layout(plan)}


@given(plans())
def test_random_plans_equal_reference(plan_and_text):
    plan, text = plan_and_text
    assert_matches_reference(plan, evaluate_workbook(_xlsx_bytes(plan, text)))


def test_an_edited_input_breaks_the_in_workbook_check(tmp_path):
    source, text = resolve(None)
    plan = plan_from_text(text, source)
    wb = build_workbook(plan, text)
    name = "wl_finetune_utilization"
    sheet, cell = next(iter(wb.defined_names[name].destinations))
    wb[sheet][cell.replace("$", "")].value = 500  # above the allowed 100
    wb.save(tmp_path / "edited.xlsx")
    values = evaluate_workbook(tmp_path / "edited.xlsx")
    assert values["checks_ok"] is False
    assert values[f"chk_in_{name}"] is False
    assert values["compute_hyperscaler_on_demand"] == pytest.approx(30000 * 500 * 3.0)


def test_plan_text_is_never_a_formula(tmp_path):
    source, text = resolve(None)
    hostile = text.replace("label: LoRA fine-tune, 13B on 2B tokens", "label: '=HYPERLINK(\"http://x\")'")
    hostile = re.sub(r"(?m)^description: .*$", "description: '@SUM(1)+13B'", hostile)
    hostile = "# =cmd|' /C calc'!A0\n" + hostile.replace("- role: ML engineer", "- role: '+1-2'")
    plan = plan_from_text(hostile, "hostile.yaml")
    out = write_workbook(plan, hostile, tmp_path / "hostile.xlsx")
    wb = openpyxl.load_workbook(out)
    texts = [c for ws in wb for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and c.value[:1] in "=+-@" and c.data_type != "f"]
    assert any(c.value.startswith("=HYPERLINK") for c in texts)
    assert any(c.value.startswith("@SUM") for c in texts)
    assert any(c.value.startswith("+1-2") for c in texts)
    generated = {(s.sheet, s.cell) for s in workbook_layout(plan) if s.formula}
    formulas_found = {(ws.title, c.coordinate) for ws in wb for row in ws.iter_rows() for c in row
                      if c.data_type == "f"}
    assert formulas_found == generated  # nothing from the plan became a formula
    assert read_embedded_plan(wb)[1] == hostile


def test_embedded_plan_round_trips_and_splits_long_text(tmp_path):
    source, text = resolve(None)
    plan = plan_from_text(text, source)
    long_text = text + "#" + "é𝄞x" * 30_000 + "\n"  # astral characters count twice in Excel's limit
    out = write_workbook(plan, long_text, tmp_path / "long.xlsx")
    wb = openpyxl.load_workbook(out)
    version, back = read_embedded_plan(wb)
    assert (version, back) == (1, long_text)
    ws = wb["_budgetbook"]
    assert ws.sheet_state == "hidden"
    assert ws["B3"].value == 4
    assert all(len(ws.cell(r, 2).value.encode("utf-16-le")) // 2 <= 32_000 for r in range(4, 8))


def test_layout_names_are_workbook_scoped_and_point_at_their_cells(tmp_path):
    source, text = resolve("pretrain-7b")
    plan = plan_from_text(text, source)
    wb = openpyxl.load_workbook(write_workbook(plan, text, tmp_path / "p.xlsx"))
    assert all(ws.defined_names == {} or not ws.defined_names for ws in wb)
    for spec in workbook_layout(plan):
        assert spec.kind in ("input", "constant", "calc", "figure", "check")
        sheet, ref = next(iter(wb.defined_names[spec.name].destinations))
        assert (sheet, ref.replace("$", "")) == (spec.sheet, spec.cell)
        cell = wb[sheet][spec.cell]
        if spec.formula is None:
            assert cell.data_type != "f"
        else:
            assert cell.value == spec.formula


def test_no_numbers_typed_inside_formulas():
    source, text = resolve("pretrain-7b")
    plan = plan_from_text(text, source)
    for spec in workbook_layout(plan):
        if spec.formula:
            stripped = re.sub(r"'[^']*'!|\$?[A-Z]{1,3}\$?[0-9]+|[A-Za-z_][A-Za-z0-9_]*", "", spec.formula)
            assert not re.search(r"[0-9]", stripped), f"{spec.name}: {spec.formula}"


def test_colliding_ids_are_a_clear_error():
    from budgetbook.errors import PlanError

    source, text = resolve(None)
    data = plan_from_text(text, source).model_dump(mode="json")
    # item `compute_x` on market `y` and compute on market `x_y` would both be `compute_x_y`
    bad = text.replace("id: decentralized_market", "id: x_y") + "items:\n  - id: compute_x\n    cost: 1\n"
    bad = bad.replace("id: hyperscaler_on_demand", "id: y")
    del data
    with pytest.raises(PlanError, match="compute_x_y"):
        build_workbook(plan_from_text(bad, "bad.yaml"), bad)
