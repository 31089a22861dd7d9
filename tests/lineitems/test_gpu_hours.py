"""Items say what they consume: a line item that buys GPU-hours on a committed market fills the block.

The item here is the test's own, registered for the test only (`LINE_ITEMS.including`): an evaluation
pass per workload, one more run's allocated GPU-hours at the price the workload pays. It declares its
hours (`gpu_hours`, `gpu_hours_cells`); nothing else in the package names it. By hand: 10 H100 reserved
on `commit` for one month = 10 x 730.5 = 7,305 GPU-hours at $2 ($14,610). A workload of 3,652.5 hours
plus its evaluation pass of 3,652.5 hours keeps the block busy: the commitment line is 0 and the total
is the block's $14,610. Counting only compute's hours (the old rule) showed 3,652.5 hours idle, $7,305
more: the evaluation's hours paid twice.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from cli_run import run
from lineitem_case import assert_cash_flow_matches_reference, assert_figures

from budgetbook.lineitems import compute
from budgetbook.lineitems.base import GpuHours, GpuHoursCells, Line, LineItem, one_sheet
from budgetbook.lineitems.markets import paying_market
from budgetbook.lineitems.phasing import run_window
from budgetbook.lineitems.registry import LINE_ITEMS
from budgetbook.markets.registry import gpu_price
from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_monthly
from budgetbook.sheetkit import style as st
from budgetbook.sheetkit.rows import CalcSheet, CellOf, Rows
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

LINE = Line("eval_pass", "Evaluation passes")
TITLE = "Evaluation passes"


# --- the test's line item: reference rule, sheet, cash flow, and the GPU-hours it buys -----------

def _hours(view: Any, w: Any) -> float:
    return compute.hours_per_run(w)[1]


def _reference(view: Any) -> dict[str, float]:
    return {LINE.id: sum(_hours(view, w) * gpu_price(paying_market(view.plan, w, view.market), w.gpu)
                         for w in view.plan.workloads)}


def _monthly(view: Any) -> dict[str, list[float]]:
    months = [[0.0] * view.months] + [
        view.spread(_hours(view, w) * gpu_price(paying_market(view.plan, w, view.market), w.gpu),
                    run_window(view.plan, w)) for w in view.plan.workloads]
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


def _gpu_hours(view: Any) -> list[GpuHours]:
    return [GpuHours(w.id, w.gpu, paying_market(view.plan, w, view.market).id, _hours(view, w),
                     run_window(view.plan, w)) for w in view.plan.workloads]


def _build(book: Any, plan: Any, inp: Any) -> None:
    sheet = CalcSheet(book, plan, TITLE, "calc", TITLE, "One more run's allocated GPU-hours per workload.")
    costs = []
    for w in plan.workloads:
        name = f"evp_{w.id}"
        sheet.section(f"Workload: {w.id}")
        hours = sheet.row("GPU-hours (one run)", "GPU-hours", st.HOURS, "={hours}", f"{name}_hours",
                          hours=CellOf(f"cmp_{w.id}_alloc_run"))
        price = sheet.row("Price per GPU-hour", f"{plan.currency}/GPU-hour", st.money(plan.currency, 2), "={price}",
                          f"{name}_price", price=lambda m, w=w: inp.price(paying_market(plan, w, m), w.gpu))
        costs.append(sheet.row("Evaluation pass", plan.currency, st.money(plan.currency), "={hours}*{price}",
                               f"{name}_cost", item=LINE.id, hours=hours, price=price))
    sheet.row(LINE.label, plan.currency, st.money(plan.currency), "=SUM({parts})", LINE.id, kind="figure",
              item=LINE.id, parts=Rows(tuple(costs)))


def _cash_flow(cf: Any, plan: Any, inp: Any) -> None:
    cf.per_run(TITLE, plan, LINE, "evaluation", "evp_{w}_cost_{m}", "cf_evp")


def _gpu_hours_cells(plan: Any, market: Any) -> list[GpuHoursCells]:
    return [GpuHoursCells(w.id, w.gpu, paying_market(plan, w, market).id, f"evp_{w.id}_hours_{market.id}",
                          f"run_{w.id}") for w in plan.workloads]


EVALUATION = LineItem(id=LINE.id, doc="one more run per workload", known_lines=(LINE,), lines=lambda plan: [LINE],
                      reference=_reference, build=_build, sheet_titles=one_sheet(TITLE), fixed_title=TITLE,
                      name_prefix="evp_", monthly=_monthly, cash_flow=_cash_flow, gpu_hours=_gpu_hours,
                      gpu_hours_cells=_gpu_hours_cells)


# --- the plans ---------------------------------------------------------------------------

MARKETS = [{"id": "commit", "gpu_prices": {"H100_SXM": 2}}, {"id": "od", "gpu_prices": {"H100_SXM": 4}}]
BLOCK = {"market": "commit", "gpu": "H100_SXM", "gpus": 10, "term_months": 1, "fallback_price_per_gpu_hour": 4}


def plan_text(hours: float, hybrid: bool = False) -> str:
    markets = copy.deepcopy(MARKETS) + ([{"id": "mix", "hybrid": {"assign": {"w": "commit"}}}] if hybrid else [])
    data = {"name": "eval-commit", "start": "2026-01", "markets": markets,
            "workloads": [{"id": "w", "gpu": "H100_SXM", "allocated_gpu_hours": hours}], "commitments": [BLOCK]}
    return yaml.safe_dump(data, sort_keys=False)


@pytest.fixture
def evaluation():
    with LINE_ITEMS.including(EVALUATION):
        yield
    assert EVALUATION not in LINE_ITEMS


def test_an_items_hours_fill_the_block_and_are_not_paid_twice(tmp_path, evaluation):
    text = plan_text(3652.5, hybrid=True)
    assert_figures(tmp_path, text, {
        "compute_commit": 7305, "eval_pass_commit": 7305, "commitment_commit": 0, "total_commit": 14610,
        "compute_od": 14610, "eval_pass_od": 14610, "commitment_od": 0, "total_od": 29220,
        # a hybrid buying from `commit` fills the same block
        "eval_pass_mix": 7305, "commitment_mix": 0, "total_mix": 14610})
    plan = plan_from_text(text)
    values = evaluate_workbook(write_workbook(plan, text, tmp_path / "busy.xlsx"))
    assert values["cf_com_1_used_commit_m1"] == pytest.approx(7305)
    assert values["cf_com_1_idle_commit_m1"] == pytest.approx(0)
    assert_cash_flow_matches_reference(plan, values)
    rows = {(r.market, r.item): r.values for r in compute_monthly(plan).rows}
    assert rows[("commit", "eval_pass")] == pytest.approx([7305])
    assert rows[("commit", "total")] == pytest.approx([14610])


def test_an_items_hours_overflow_the_block_at_the_fallback_rate(tmp_path, evaluation):
    # 5,000 + 5,000 hours in a 7,305-hour block: 2,695 overflow at $4 - $2 = $5,390 beyond the items' $2
    assert_figures(tmp_path, plan_text(5000), {
        "compute_commit": 10000, "eval_pass_commit": 10000, "commitment_commit": 5390, "total_commit": 25390})


def test_a_book_with_the_item_checks_ok(tmp_path, capsys, evaluation):
    text = plan_text(3652.5)
    book = write_workbook(plan_from_text(text), text, tmp_path / "book.xlsx")
    code, out, err = run(capsys, "check", book)
    assert code == 0, out + err


def test_the_item_is_gone_after_the_test(evaluation):
    pass


def test_including_refuses_a_clash():
    clash = LineItem(id="compute2", doc="", known_lines=(Line("compute", "Compute again"),), lines=lambda plan: [],
                     reference=lambda view: {}, build=lambda book, plan, inp: None, sheet_titles=one_sheet("X"))
    with pytest.raises(ValueError, match="two line items share the line id 'compute'"):
        with LINE_ITEMS.including(clash):
            pass
    assert clash not in LINE_ITEMS
