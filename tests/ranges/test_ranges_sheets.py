"""The Sensitivity sheet and Summary's simulated percentiles as written, and what `check` and `extract` make
of a workbook switched to a scenario or with its computed numbers typed over."""

from __future__ import annotations

import openpyxl
import pytest

from budgetbook.plan.inputs import input_cells
from budgetbook.planfile.loader import plan_from_text, resolve
from budgetbook.ranges.sensitivity import sensitivity
from budgetbook.ranges.simulate import simulate
from budgetbook.review.check import check_workbook
from budgetbook.review.extract import extract_plan_text
from budgetbook.workbook.human_labels import input_title
from budgetbook.workbook.percentiles import DISTRIBUTION, SAMPLES, SEED
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook


def _book(tmp_path, template):
    source, text = resolve(template)
    plan = plan_from_text(text, source)
    return plan, write_workbook(plan, text, tmp_path / f"{template}.xlsx")


def _cell(wb, name):
    sheet, cell = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][cell.replace("$", "")]


@pytest.mark.parametrize("template", ["pretrain-7b", "deepseek-v3"])
def test_sensitivity_sheet_and_percentiles_are_the_library_values(tmp_path, template):
    plan, path = _book(tmp_path, template)
    wb = openpyxl.load_workbook(path)
    result = sensitivity(plan)
    close = lambda x: pytest.approx(x, rel=1e-15)  # noqa: E731 - a float as the file stores it (17 digits)
    assert _cell(wb, "sens_base").value == close(result.base)
    ws = wb["Sensitivity"]
    cells = {cell.key_path: cell for cell in input_cells(plan)}
    for k, swing in enumerate(result.inputs, 1):
        low = _cell(wb, f"sens_low_{k}")
        assert low.value == close(swing.low_total) and _cell(wb, f"sens_high_{k}").value == close(swing.high_total)
        # the sheet titles the input as Checks and the tornado do (owner: title), where the library keeps its label
        assert ws.cell(low.row, 2).value == input_title(plan, cells[swing.input]) and \
            ws.cell(low.row, 3).value == swing.input
        assert _cell(wb, f"sens_swing_{k}").value.startswith("=ABS(")  # live
    values = evaluate_workbook(path)
    for k, swing in enumerate(result.inputs, 1):
        assert values[f"sens_swing_{k}"] == pytest.approx(swing.swing, abs=1e-6)
        assert values[f"sens_dhigh_{k}"] == pytest.approx(swing.high_total - result.base, abs=1e-6)
    simulated = simulate(plan, SAMPLES, SEED, DISTRIBUTION)
    for market, stats in simulated.markets.items():
        for key in ("p10", "p50", "p90"):
            assert _cell(wb, f"sim_{key}_{market}").value == close(getattr(stats, key))
    assert ws._charts and ws._charts[0].type == "bar"


def test_a_plan_without_ranges_has_no_sensitivity_sheet_nor_percentiles(tmp_path):
    text = "name: flat\nmarkets: [{id: m, gpu_prices: {H100: 2}}]\n" \
           "workloads: [{id: w, gpu: H100, ideal_gpu_hours: 100, utilization: 1.5}]\n"
    path = write_workbook(plan_from_text(text, "flat.yaml"), text, tmp_path / "flat.xlsx")
    wb = openpyxl.load_workbook(path)
    assert "Sensitivity" not in wb.sheetnames
    assert not [n for n in wb.defined_names if n.startswith(("sim_", "sens_"))]
    assert check_workbook(path).ok


def _edited(tmp_path, template: str, name: str, value):
    """(plan, a copy of its workbook with the cell `name` set to `value`, as openpyxl saves it)."""
    plan, path = _book(tmp_path, template)
    wb = openpyxl.load_workbook(path)
    _cell(wb, name).value = value
    wb.save(tmp_path / "edited.xlsx")
    return plan, tmp_path / "edited.xlsx"


def test_a_typed_over_percentile_is_a_structure_error(tmp_path):
    report = check_workbook(_edited(tmp_path, "finetune-13b-lora", "sim_p90_decentralized_market", 150000)[1])
    assert not report.ok
    found = [f for f in report.findings if f.name == "sim_p90_decentralized_market"]
    assert [(f.kind, f.severity) for f in found] == [("structure", "error")]


def test_an_input_edit_leaves_the_computed_numbers_stale_a_warning(tmp_path):
    report = check_workbook(_edited(tmp_path, "finetune-13b-lora", "mkt_decentralized_market_price_h100_sxm", 1.9)[1])
    assert report.ok
    stale = [f for f in report.findings if f.kind == "stale"]
    assert len(stale) == 1 and stale[0].severity == "warning" and "extract" in stale[0].message


def test_extract_of_a_worst_case_workbook_keeps_every_range(tmp_path):
    plan, worst = _edited(tmp_path, "pretrain-7b", "scenario", "worst")
    extracted = plan_from_text(extract_plan_text(worst), "extracted.yaml")
    assert {c.name: c.num for c in input_cells(extracted)} == {c.name: c.num for c in input_cells(plan)}
