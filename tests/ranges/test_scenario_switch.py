"""The live scenario switch: the workbook with `scenario` set to best/base/worst gives `show`'s low/value/high.

Both engines: `formulas` (our evaluator) on random plans, LibreOffice on every template and random plans,
each batch of workbooks recalculated in one LibreOffice conversion. And `check` reads the switch and the
ends of the ranges as inputs.
"""

from __future__ import annotations

import datetime as dt
import math
import subprocess

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from libreoffice import (
    CONVERT_TIMEOUT,
    _convert_profile,
    _profile_lock,
    _profile_url,
    _require_soffice,
    cell_values,
    needs_libreoffice,
)
from strategies import plans

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.reference import compute_breakdown
from budgetbook.review.check import check_workbook
from budgetbook.sheetkit.scenario import CHOICES, PLAN_SCENARIO
from budgetbook.workbook.build import build_workbook
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

END = {"best": "low", "base": "value", "worst": "high"}


def expected(figure, scenario: str) -> float:
    value = getattr(figure, END[scenario])
    return figure.value if value is None else value


def with_scenario(wb, scenario: str):
    sheet, cell = next(iter(wb.defined_names["scenario"].destinations))
    wb[sheet][cell.replace("$", "")] = scenario
    return wb


def disagreements(plan, values: dict, scenario: str) -> list:
    lower = {k.lower(): v for k, v in values.items()}
    out = []
    for figure in compute_breakdown(plan).figures:
        got, want = lower.get(figure.name.lower()), expected(figure, scenario)
        if not isinstance(got, (int, float)) or not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-6):
            out.append((figure.name, scenario, got, want))
    if lower.get("checks_ok") is not True:
        out.append(("checks_ok", scenario, lower.get("checks_ok"), True))
    return out


def recalculate_all(books: list, out_dir) -> list:
    """LibreOffice recalculates every workbook of `books` in one conversion (one start of soffice)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with _profile_lock:
        done = subprocess.run([_require_soffice(), "--headless", "--norestore", "--nologo",
                               f"-env:UserInstallation={_profile_url(_convert_profile())}",
                               "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir),
                               *map(str, books)], capture_output=True, text=True, timeout=CONVERT_TIMEOUT * 2)
    outs = [out_dir / book.name for book in books]
    assert all(out.is_file() for out in outs), done.stderr
    return outs


def _template_plans():
    for template in template_names():
        source, text = resolve(template)
        yield template, plan_from_text(text, source), text


@settings(max_examples=3)  # ~2.5 s each: two evaluations and a check of a fresh workbook
@given(plan_and_text=plans())
def test_formulas_engine_moves_with_the_scenario(plan_and_text, tmp_path_factory):
    plan, text = plan_and_text
    wb = build_workbook(plan, text, dt.date(2026, 1, 1))
    folder = tmp_path_factory.mktemp("scn")
    for scenario in CHOICES:
        path = folder / f"{scenario}.xlsx"
        with_scenario(wb, scenario).save(path)
        if scenario != "worst":
            assert disagreements(plan, evaluate_workbook(path), scenario) == []
            continue
        # `check` evaluates the book too, and holds it against the reference in its scenario (Cash flow included)
        report = check_workbook(path)
        assert report.ok, [f.message for f in report.findings if f.severity == "error"]
        assert {f.kind for f in report.findings} <= {"input_changed"}
        values = {r["name"]: r["value"] for r in report.figures} | {"checks_ok": True}
        assert disagreements(plan, values, scenario) == []


def _books(cases, folder, scenarios=CHOICES) -> list:
    folder.mkdir(exist_ok=True)
    books = []
    for tag, plan, text in cases:
        for scenario in scenarios:
            path = folder / f"{tag}-{scenario}.xlsx"
            with_scenario(build_workbook(plan, text, dt.date(2026, 1, 1)), scenario).save(path)
            books.append((plan, scenario, path))
    return books


@needs_libreoffice
@settings(max_examples=1)
@given(cases=st.lists(plans(), min_size=1, max_size=1))  # about 1.5 s a book: 10 books in CI's 40 s of new tests
def test_libreoffice_reproduces_show_in_every_scenario(cases, tmp_path_factory):
    """Every template and a random plan, best and worst (base: test_workbook_libreoffice), one conversion;
    the formulas engine takes more random plans (above)."""
    folder = tmp_path_factory.mktemp("lo")
    randoms = [(f"random{i}", plan, text) for i, (plan, text) in enumerate(cases)]
    books = _books(list(_template_plans()) + randoms, folder / "in", ("best", "worst"))
    outs = recalculate_all([path for _, _, path in books], folder / "out")
    wrong = [d for (plan, scenario, _), out in zip(books, outs, strict=True)
             for d in disagreements(plan, cell_values(out), scenario)]
    assert wrong == []


def test_a_plan_without_ranges_has_no_used_cells():
    plan = plan_from_text("name: flat\nmarkets: [{id: m, gpu_prices: {H100: 2}}]\n"
                          "workloads: [{id: w, gpu: H100, ideal_gpu_hours: 100, utilization: 1.5}]\n", "flat.yaml")
    wb = build_workbook(plan, "", dt.date(2026, 1, 1))
    assert "scenario" in wb.defined_names
    assert not [n for n in wb.defined_names if n.endswith("_used")]


def _book(tmp_path, template="finetune-13b-lora"):
    source, text = resolve(template)
    return write_workbook(plan_from_text(text, source), text, tmp_path / f"{template}.xlsx")


def _set(wb, name, value):
    sheet, cell = next(iter(wb.defined_names[name].destinations))
    wb[sheet][cell.replace("$", "")] = value


@pytest.mark.parametrize("scenario", CHOICES)
def test_check_holds_a_workbook_against_its_scenario(tmp_path, scenario):
    wb = with_scenario(openpyxl.load_workbook(_book(tmp_path)), scenario)
    wb.save(tmp_path / "saved.xlsx")
    report = check_workbook(tmp_path / "saved.xlsx")
    assert report.ok, [f.message for f in report.findings]
    changed = [f for f in report.findings if f.name == "scenario"]
    assert [f.kind for f in changed] == ([] if scenario == "base" else ["input_changed"])
    plan = plan_from_text(*reversed(resolve("finetune-13b-lora")))
    want = {f.name: expected(f, scenario) for f in compute_breakdown(plan).figures}
    assert {r["name"]: r["reference"] for r in report.figures} == pytest.approx(want)
    assert PLAN_SCENARIO[scenario] in ("low", "base", "high")


def test_an_edited_end_of_a_range_is_an_input_edit_and_moves_the_worst_case(tmp_path):
    wb = with_scenario(openpyxl.load_workbook(_book(tmp_path)), "worst")
    _set(wb, "wl_finetune_waste_high", 0.4)       # was 0.30
    wb.save(tmp_path / "edited.xlsx")
    report = check_workbook(tmp_path / "edited.xlsx")
    assert report.ok, [f.message for f in report.findings]
    edit = next(f for f in report.findings if f.name == "wl_finetune_waste_high")
    assert (edit.kind, edit.expected, edit.actual) == ("input_changed", 0.3, 0.4)
    figures = {r["name"]: r for r in report.figures}
    compute = figures["compute_hyperscaler_on_demand"]["reference"]
    assert figures["failed_runs_hyperscaler_on_demand"]["reference"] == pytest.approx(compute * 0.4)


def test_a_typed_over_figure_is_still_caught_in_the_worst_case(tmp_path):
    wb = with_scenario(openpyxl.load_workbook(_book(tmp_path)), "worst")
    _set(wb, "compute_hyperscaler_on_demand", 144000)  # the base value, typed over the worst case
    wb.save(tmp_path / "typed.xlsx")
    kinds = {f.kind for f in check_workbook(tmp_path / "typed.xlsx").findings}
    assert {"hardcoded", "mismatch"} <= kinds


@pytest.mark.parametrize("value, problem", [("bogus", "expected one of best, base, worst"),
                                            (3, "expected one of best, base, worst")])
def test_a_scenario_that_is_not_a_choice_is_an_invalid_input(tmp_path, value, problem):
    wb = openpyxl.load_workbook(_book(tmp_path))
    _set(wb, "scenario", value)
    wb.save(tmp_path / "bad.xlsx")
    report = check_workbook(tmp_path / "bad.xlsx")
    assert not report.ok
    assert any(f.kind == "invalid_input" and problem in f.message and f.name == "scenario"
               for f in report.findings)


def test_an_end_beyond_its_value_widens_the_range_with_a_warning(tmp_path):
    """A fair edit (issue 25): the range read is the one covering the value; tests/test_fair_edits.py has more."""
    wb = openpyxl.load_workbook(_book(tmp_path))
    _set(wb, "wl_finetune_waste_low", 0.5)        # above its value 0.25
    wb.save(tmp_path / "wide.xlsx")
    report = check_workbook(tmp_path / "wide.xlsx")
    assert report.ok
    assert any(f.kind == "outside_range" and f.severity == "warning" and "widened to 0.25 to 0.5" in f.message
               for f in report.findings)
