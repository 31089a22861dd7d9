"""Final-run compute: what the one run that made the model cost, the figure press releases quote.

Rule: the compute of the workloads marked `final_run`, on each market. It is
already inside Compute; it is reported beside the total development cost, never
added to it a second time.
"""

from __future__ import annotations

from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, sum_arguments
from . import compute
from .base import Line, LineItem, no_sheet, rule
from .scenario import MarketView

LINE = Line("final_run", "Final-run compute", in_total=False)
TOKENS = "cmp_tokens"  # training tokens of the final run: Summary divides by them


def lines(plan: Plan) -> list[Line]:
    return [LINE] if any(w.final_run for w in plan.workloads) else []


def reference(view: MarketView) -> dict[str, float]:
    return {LINE.id: sum(compute.workload_compute(view, w).cost for w in view.plan.workloads if w.final_run)}


def workload_detail(view: MarketView, workload) -> dict[str, float]:
    return {LINE.id: compute.workload_compute(view, workload).cost if workload.final_run else 0.0}


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    """Rows at the foot of the Compute sheet, under their own heading."""
    final = [w for w in plan.workloads if w.final_run]
    if not final:
        return
    sheet = CalcSheet.resume(book, plan, compute.TITLE)
    sheet.section("Beside the total, never added into it")
    sheet.row("Final-run compute (workloads marked final_run)", plan.currency, st.money(plan.currency),
              "=SUM({parts})", LINE.id, kind="figure", item=LINE.id,
              parts=lambda m: sum_arguments([book.ref(f"cmp_{w.id}_compute_{m.id}", sheet.sheet) for w in final]))
    tokens = [inp[("workloads", plan.workloads.index(w), "flops", "tokens")] for w in final if w.flops is not None]
    if tokens:
        sheet.row("Training tokens of the final run", "tokens", st.SCALED, "=SUM({tokens})", TOKENS,
                  tokens=sum_arguments(tokens))


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lines, reference=reference,
                build=build, sheet_titles=no_sheet, workload_detail=workload_detail)
