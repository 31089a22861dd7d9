"""`Failed runs`: the compute lost to sweeps, OOMs and killed runs, as a share of each workload's compute."""

from __future__ import annotations

from ..plan.model import Plan
from ..workbook import style as st
from ..workbook.rows import at, formula_row, section, start_calc_sheet, sum_of
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs


def build_failed_runs(book: Book, plan: Plan, inp: Inputs) -> Sheet:
    sheet = start_calc_sheet(book, plan, "Failed runs", "calc", "Failed runs",
                             "Compute x waste share: runs that are paid for and thrown away.")
    money0 = st.money(plan.currency)
    losses = []
    for i, w in enumerate(plan.workloads):
        n = lambda q, w=w.id: (lambda m: f"fail_{w}_{q}_{m.id}")  # noqa: E731
        section(sheet, f"Workload: {w.label or w.id} ({w.id})")
        compute = formula_row(book, sheet, plan, "Compute", plan.currency, money0,
                              lambda m, c: "=" + book.ref(f"cmp_{w.id}_compute_{m.id}", sheet), n("compute"))
        waste = formula_row(book, sheet, plan, "Waste (share of compute)", "share", st.SHARE,
                            lambda m, c: "=" + inp[("workloads", i, "waste")], n("waste"))
        losses.append(formula_row(book, sheet, plan, "Failed runs", plan.currency, money0,
                                  lambda m, c: f"={at(sheet, compute, c)}*{at(sheet, waste, c)}", n("cost"),
                                  item="failed_runs"))
        sheet.row += 1
    section(sheet, "All workloads")
    formula_row(book, sheet, plan, "Failed runs (all workloads)", plan.currency, money0,
                lambda m, c: "=" + sum_of([at(sheet, r, c) for r in losses]),
                lambda m: f"failed_runs_{m.id}", kind="figure", item="failed_runs")
    return sheet
