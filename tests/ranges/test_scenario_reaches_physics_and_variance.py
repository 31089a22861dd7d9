"""The scenario switch (issue 10) moves every calculation that reads a ranged input: the Compute sheet's
physical figures (issue 13) and the Variance sheet's plan (issue 12) too, and `check` holds each against the
reference in the book's scenario. Found at the merge: both were held to the base case."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from focus_bills import write_sample_bills
from libreoffice import needs_libreoffice, recalculated_values

from budgetbook.actuals.api import book_variance, import_actuals
from budgetbook.api import check_workbook, generate_workbook
from budgetbook.ledger.embed import read_embedded_actuals
from budgetbook.ledger.variance import compute_variance
from budgetbook.physics.model import physics_rows
from budgetbook.planfile.loader import load_plan

PLAN = "pretrain-7b"
SWITCH = {"best": "low", "worst": "high"}


@pytest.fixture(scope="module")
def switched(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("seams")
    generate_workbook(PLAN, d / "plan.xlsx")
    import_actuals(d / "plan.xlsx", write_sample_bills(d), d / "imported.xlsx", mapping=d / "map.yaml")
    books = {}
    for scenario in SWITCH:
        wb = openpyxl.load_workbook(d / "imported.xlsx")
        sheet, cell = next(iter(wb.defined_names["scenario"].destinations))
        wb[sheet][cell.replace("$", "")] = scenario
        books[scenario] = d / f"{scenario}.xlsx"
        wb.save(books[scenario])
    return books


@pytest.mark.parametrize("scenario", SWITCH)
def test_check_holds_physics_and_variance_in_the_books_scenario(switched, scenario):
    report = check_workbook(switched[scenario])
    assert report.ok, [f.as_dict() for f in report.findings if f.severity == "error"]
    assert [f.kind for f in report.findings] == ["input_changed"]  # the switch itself, nothing else


@needs_libreoffice
@pytest.mark.parametrize("scenario", ["worst"])
def test_libreoffice_in_the_worst_scenario_equals_the_reference(switched, scenario, tmp_path):
    book = switched[scenario]
    values = recalculated_values(book, tmp_path / "lo")
    plan, end = load_plan(PLAN), SWITCH[scenario]
    wb = openpyxl.load_workbook(book)
    expected = compute_variance(plan, read_embedded_actuals(wb, book.read_bytes()), end).named()
    expected |= {name: value for name, _item, _market, _label, value in physics_rows(plan, end)}
    base = compute_variance(plan, read_embedded_actuals(wb, book.read_bytes())).named()
    assert any(base[n] != pytest.approx(v) for n, v in expected.items() if n in base), "the switch moved nothing"
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, rel=1e-9, abs=1e-6), name


def test_an_imported_book_carries_its_values(switched):
    """`actuals` writes through the same writer as `generate`: every formula with its value cached."""
    book = switched["best"].with_name("imported.xlsx")
    wb = openpyxl.load_workbook(book, data_only=True)
    plan = load_plan(PLAN)
    expected = compute_variance(plan, read_embedded_actuals(openpyxl.load_workbook(book), book.read_bytes()))
    for name, value in list(expected.named().items())[:50]:
        sheet, cell = next(iter(wb.defined_names[name].destinations))
        assert wb[sheet][cell.replace("$", "")].value == pytest.approx(value, rel=1e-9, abs=1e-6), name


def test_the_variance_command_follows_the_switch(switched):
    """`budgetbook variance` prints what the Variance sheet shows: the plan in the book's scenario."""
    book = switched["worst"]
    actuals = read_embedded_actuals(openpyxl.load_workbook(book), book.read_bytes())
    expected = compute_variance(load_plan(PLAN), actuals, "high").named()
    assert book_variance(book).named() == pytest.approx(expected)
    assert expected != pytest.approx(compute_variance(load_plan(PLAN), actuals).named())
