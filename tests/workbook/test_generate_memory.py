"""What `generate` lets go of, or does early, to hold less at once (docs/scale.md, "generate's memory at the
largest plan"): the layout a written blueprint no longer needs (`Blueprint.shed_layout`), and the Summary's
simulation run before the plan is laid out (`percentiles.simulate_first`). The books stay byte-identical
(`test_streamed.py` holds the streamed book, which sheds, to the one rendered whole, which does not)."""

from __future__ import annotations

import datetime as dt

import pytest

from budgetbook.planfile.loader import plan_and_book, plan_from_text, resolve
from budgetbook.workbook.build import build_book
from budgetbook.workbook.computed import Computed
from budgetbook.workbook.percentiles import _simulated, simulated

DAY = dt.date(2026, 1, 1)


def test_a_shed_blueprint_keeps_the_named_specs_and_every_cell():
    source, text = resolve("lab-year")
    plan = plan_from_text(text, source)
    book = build_book(plan, DAY, plan_text=text)
    named = {name: spec for name, spec in book.specs.items() if spec.named}
    cells = {sheet.title: dict(sheet.cells) for sheet in book.sheets}
    book.shed_layout()
    assert book.specs == named and book.where == {}
    assert {sheet.title: sheet.cells for sheet in book.sheets} == cells
    with pytest.raises(RuntimeError):
        book.layout()
    with pytest.raises(RuntimeError):
        book.name("late_name", book.sheets[0], 200, 1, "constant")


def test_a_large_book_sheds_the_specs_its_anchors_find():
    """Past the name budget most calculations are found by their anchors: those specs go, the named stay."""
    from budgetbook.sheetkit import anchors

    source, text = resolve("lab-year")
    plan = plan_from_text(text, source)
    budget = anchors.NAME_BUDGET
    anchors.NAME_BUDGET = 100  # read at each call: this small book goes by anchors
    try:
        book = build_book(plan, DAY, plan_text=text)
    finally:
        anchors.NAME_BUDGET = budget
    anchored = sum(1 for spec in book.specs.values() if not spec.named)
    assert anchored > 0
    before = len(book.specs)
    book.shed_layout()
    assert len(book.specs) == before - anchored and all(spec.named for spec in book.specs.values())


def _percentile_values(book) -> dict[tuple[str, int, int], float]:
    return {(sheet.title, row, col): cell.value.value for sheet in book.sheets
            for (row, col), cell in sheet.cells.items() if isinstance(cell.value, Computed)
            and cell.name and cell.name.startswith("sim_")}


def test_generate_simulates_before_laying_out_and_the_summary_reads_that_run():
    source, text = resolve("pretrain-7b")
    plan, book = plan_and_book(text, source)
    assert id(plan) in simulated._by_id  # run while loading, though no cell was read yet
    first = simulated(plan)
    values = _percentile_values(book)
    assert values and all(isinstance(value, float) for value in values.values())
    fresh = _simulated(plan)  # the same draws from the same seed: the same numbers
    assert {m: (s.p10, s.p50, s.p90, s.cheapest) for m, s in fresh.markets.items()} == \
        {m: (s.p10, s.p50, s.p90, s.cheapest) for m, s in first.markets.items()}
    again = _percentile_values(build_book(plan, book.dated, plan_text=text))
    assert again == values


def test_a_plan_without_ranges_is_not_simulated():
    text = ("name: flat\nmarkets: [{id: a, gpu_prices: {H100: 2}}, {id: b, gpu_prices: {H100: 3}}]\n"
            "workloads: [{id: w, gpu: H100, ideal_gpu_hours: 100, utilization: 1.5}]\n")
    plan, book = plan_and_book(text, "flat.yaml")
    assert not _percentile_values(book) and id(plan) not in simulated._by_id
