"""Failed runs: the compute lost to sweeps, OOMs, corrupted shards and killed runs.

Rule: each workload's compute x its waste share (the seed's +20-30 %): runs
that are paid for and thrown away. Over time, in the months the workload runs,
as its compute.
"""

from __future__ import annotations

from typing import Any

from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, Rows
from . import compute
from .base import GpuHours, GpuHoursCells, Line, LineItem, one_sheet, rule
from .markets import paying_market
from .phasing import run_window
from .scenario import MarketView

TITLE = "Failed runs"
LINE = Line("failed_runs", "Failed runs", billed="gpu")


def failed(view: MarketView, workload: Any) -> float:
    return compute.workload_compute(view, workload).cost * workload.waste


def reference(view: MarketView) -> dict[str, float]:
    return {LINE.id: sum(failed(view, w) for w in view.plan.workloads)}


def monthly(view: MarketView) -> dict[str, list[float]]:
    months = [view.spread(failed(view, w), run_window(view.plan, w)) for w in view.plan.workloads]
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


def gpu_hours(view: MarketView) -> list[GpuHours]:
    """The failed runs' share of each workload's allocated hours: bought, then thrown away."""
    out = []
    for w in view.plan.workloads:
        done = compute.workload_compute(view, w)
        out.append(GpuHours(w.id, w.gpu, done.pays, done.allocated_hours * w.waste, run_window(view.plan, w)))
    return out


def gpu_hours_cells(plan: Plan, market: Any) -> list[GpuHoursCells]:
    m = market.id
    return [GpuHoursCells(w.id, w.gpu, paying_market(plan, w, market).id, f"cmp_{w.id}_alloc_{m}*fail_{w.id}_waste_{m}",
                          f"run_{w.id}") for w in plan.workloads]


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    cf.per_run(TITLE, plan, LINE, "failed runs", "fail_{w}_cost_{m}", "cf_fail")


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    sheet = CalcSheet(book, plan, TITLE, "calc", "Failed runs",
                      "Compute x waste share: runs that are paid for and thrown away.")
    money0 = st.money(plan.currency)
    losses = []
    for i, w in enumerate(plan.workloads):
        name = f"fail_{w.id}"
        sheet.section(f"Workload: {w.label or w.id} ({w.id})")
        spent = sheet.row("Compute", plan.currency, money0, "={compute}", f"{name}_compute",
                          compute=CellOf(f"cmp_{w.id}_compute"))
        waste = sheet.row("Waste (share of compute)", "share", st.SHARE, "={waste}", f"{name}_waste",
                          waste=inp[("workloads", i, "waste")])
        losses.append(sheet.row("Failed runs", plan.currency, money0, "={compute}*{waste}", f"{name}_cost",
                                item=LINE.id, compute=spent, waste=waste))
        sheet.gap()
    sheet.section("All workloads")
    sheet.row("Failed runs (all workloads)", plan.currency, money0, "=SUM({parts})", LINE.id, kind="figure",
              item=LINE.id, parts=Rows(tuple(losses)))


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lambda plan: [LINE],
                reference=reference, build=build, sheet_titles=one_sheet(TITLE), fixed_title=TITLE,
                name_prefix="fail_", workload_detail=lambda view, w: {LINE.id: failed(view, w)},
                monthly=monthly, cash_flow=cash_flow, gpu_hours=gpu_hours, gpu_hours_cells=gpu_hours_cells)
