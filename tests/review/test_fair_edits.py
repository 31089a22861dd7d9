"""Fair edits (issue 25 item 3): a value typed outside its own range is a warning, never a refused book.

A better quote typed below a price's Low passes the cell's data validation (the hard bounds) and
recalculates; `check` warns (`outside_range`) and compares every figure in every scenario, `extract`
writes the value with the range widened (saying so on stderr), `diff` shows it. Only values outside the
hard allowed bounds are errors, and a rule across inputs names the cell a user typed into. The edit is
made as a user makes it: typed in LibreOffice (UNO), saved, then checked, extracted and diffed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from hypothesis import HealthCheck, given, settings
from libreoffice import needs_uno, uno_session
from strategies import plans

from budgetbook.api import generate_workbook
from budgetbook.plan.inputs import input_cells
from budgetbook.planfile.loader import load_plan, plan_from_text
from budgetbook.review.check import check_workbook
from budgetbook.workbook.build import build_workbook

P7 = "pretrain-7b"
PRICE = "mkt_neo_cloud_price_h100_sxm"          # 3.23 in the range 3.04 to 3.42
PRICE_KEY = "markets[neo_cloud].gpu_prices.H100_SXM"


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return generate_workbook(P7, tmp_path_factory.mktemp("fair") / f"{P7}.xlsx")


def where(path: Path, name: str) -> tuple[str, str]:
    wb = openpyxl.load_workbook(path)
    (sheet, ref), = wb.defined_names[name].destinations
    return sheet, ref.replace("$", "")


def edited(book: Path, target: Path, **cells) -> Path:
    wb = openpyxl.load_workbook(book)
    for name, value in cells.items():
        (sheet, ref), = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")].value = value
    wb.save(target)
    return target


@pytest.mark.parametrize("scenario", ["best", "base", "worst"])
@pytest.mark.parametrize(("cells", "span"), [
    ({PRICE: 2.5}, (2.5, 3.42)),                                     # a better quote, below the Low
    ({PRICE: 3.9}, (3.04, 3.9)),                                     # above the High
    ({f"{PRICE}_low": 3.3, f"{PRICE}_high": 3.1}, (3.1, 3.3)),       # ends typed the wrong way round
    ({"wl_pretrain_mfu": 0.6}, (0.45, 0.6)),                         # MFU (a larger value lowers the cost)
])
def test_a_value_outside_its_range_is_a_warning_and_every_figure_is_compared(book, tmp_path, scenario, cells, span):
    path = edited(book, tmp_path / "edited.xlsx", scenario=scenario, **cells)
    report = check_workbook(path)
    errors = [f for f in report.findings if f.severity == "error"]
    assert report.ok and not errors, errors
    name = next(iter(cells)).removesuffix("_low")
    warned, = [f for f in report.findings if f.kind == "outside_range"]
    assert (warned.severity, warned.sheet, warned.cell, warned.name) == ("warning", *where(book, name), name)
    assert f"widened to {span[0]:g} to {span[1]:g}" in warned.message
    # every figure compared, against the reference of the widened range, in the workbook's own scenario
    assert report.figures and all(f["reference"] is not None for f in report.figures)
    # a millionth of a cent apart at most where the figure is zero (a gap line's rounding, 3e-11)
    assert all(f["value"] == pytest.approx(f["reference"], rel=1e-9, abs=1e-8) for f in report.figures)


def test_outside_the_hard_bounds_is_still_an_error_naming_the_cell(book, tmp_path):
    path = edited(book, tmp_path / "negative.xlsx", **{f"{PRICE}_low": -1.0})
    report = check_workbook(path)
    bad, = [f for f in report.findings if f.kind == "invalid_input"]
    assert (bad.severity, bad.name) == ("error", f"{PRICE}_low") and bad.sheet == "Inputs" and bad.cell
    assert "got -1" in bad.message


def test_extract_names_the_end_cell_that_is_outside_the_hard_bounds(book, tmp_path, capsys):
    path = edited(book, tmp_path / "negative.xlsx", **{f"{PRICE}_high": -1.0})
    sheet, ref = where(book, f"{PRICE}_high")
    code, out, err = run(capsys, "extract", path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"Error: {path}: {sheet}!{ref} ({PRICE}_high): "), err
    assert "-1 is out of range; must be at least 0" in err


def test_a_rule_across_inputs_names_the_cell(tmp_path, capsys):
    """Hours that deliver more FLOPs than the GPUs' peak: the loader names a key path; check names the cell."""
    book = generate_workbook("deepseek-v3", tmp_path / "ds.xlsx")
    name = "wl_final_run_allocated_gpu_hours"
    sheet, ref = where(book, name)
    path = edited(book, tmp_path / "impossible.xlsx", **{name: 1000})
    code, out, err = run(capsys, "check", path, "--format", "json")
    assert code == 1 and err == "", err
    bad, = [f for f in json.loads(out)["findings"] if f["kind"] == "invalid_input"]
    assert (bad["sheet"], bad["cell"], bad["name"]) == (sheet, ref, name)
    assert "above the GPUs' peak" in bad["message"]
    for command in ("extract", "diff"):
        args = (command, path) if command == "extract" else (command, book, path)
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"Error: {path}: {sheet}!{ref} ({name}): "), err


@needs_uno
def test_a_price_typed_below_its_low_in_libreoffice_checks_extracts_and_diffs(book, tmp_path, capsys):
    sheet, ref = where(book, PRICE)
    with uno_session() as office:
        saved = office.edit(book, tmp_path / "lo" / "cheaper.xlsx",
                            [{"op": "type", "sheet": sheet, "cell": ref, "text": "2.5"}])
    assert openpyxl.load_workbook(saved)[sheet][ref].value == 2.5  # the validation let it in, as it should
    before = sha(saved)
    code, out, err = run(capsys, "check", saved, "--format", "json")
    assert code == 0 and err == "", err
    report = json.loads(out)
    warned, = [f for f in report["findings"] if f["kind"] == "outside_range"]
    assert (warned["sheet"], warned["cell"], warned["name"]) == (sheet, ref, PRICE)
    assert report["figures"] and all(f["reference"] == pytest.approx(f["value"], rel=1e-9, abs=1e-8)
                                    for f in report["figures"])

    target = tmp_path / "cheaper.yaml"
    code, out, err = run(capsys, "extract", saved, "-o", target)
    assert code == 0
    assert err.startswith(f"Warning: {saved}: {sheet}!{ref} ({PRICE}): ") and "widened to 2.5 to 3.42" in err, err
    price = load_plan(target).markets[1].gpu_prices["H100_SXM"]
    assert (price.low, price.base, price.high, price.ranged) == (2.5, 2.5, 3.42, True)
    assert plan_from_text(target.read_text()).markets[1].id == "neo_cloud"

    code, out, err = run(capsys, "diff", book, saved, "--format", "json")
    assert code == 0 and "widened to 2.5 to 3.42" in err
    change, = [c for c in json.loads(out)["inputs"] if c["key"] == PRICE_KEY]
    assert change["change"] == "changed" and change["new"] == {"low": 2.5, "base": 2.5, "high": 3.42}
    assert sha(saved) == before


def _validation_allows(rule, value: float) -> bool:
    """What a cell's data validation (as written) accepts: `decimal between`, or the custom exclusive-minimum rule."""
    if rule.type == "decimal":
        assert rule.operator == "between"
        return float(rule.formula1) <= value <= float(rule.formula2)
    import re

    minimum, maximum = re.fullmatch(r"AND\(ISNUMBER\(\w+\),\w+>([^,]+),\w+<=([^)]+)\)", rule.formula1).groups()
    return float(minimum) < value <= float(maximum)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_every_input_cell_validates_exactly_its_hard_bounds(plan_and_text):
    """The validation a user meets when typing and the bounds `check` holds a value to are one rule: the value
    cell and the Low and High cells of every input of random plans, at and just past each bound."""
    plan, text = plan_and_text
    wb = build_workbook(plan, text)
    rules = {}
    for rule in wb["Inputs"].data_validations.dataValidation:
        for ref in str(rule.sqref).split():
            rules[ref] = rule
    for cell in input_cells(plan):
        names = [cell.name] + ([f"{cell.name}_low", f"{cell.name}_high"] if cell.num.ranged else [])
        for name in names:
            (sheet, ref), = wb.defined_names[name].destinations
            rule = rules[ref.replace("$", "")]
            b = cell.bounds
            for value in (b.minimum, b.maximum, math.nextafter(b.minimum, -math.inf),
                          math.nextafter(b.maximum, math.inf), (b.minimum + b.maximum) / 2):
                assert _validation_allows(rule, value) == b.allows(value), (name, value, rule.formula1)
