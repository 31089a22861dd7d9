"""`Compute`: GPU-hours and their price, one block of rows per workload, one column per market."""

from __future__ import annotations

from ..plan.model import Plan
from ..workbook import style as st
from ..workbook.rows import at, formula_row, section, start_calc_sheet, sum_of, text_row
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs


def build_compute(book: Book, plan: Plan, inp: Inputs) -> Sheet:
    sheet = start_calc_sheet(book, plan, "Compute", "calc", "Compute",
                             "Ideal GPU-hours become allocated (paid) hours through utilization or MFU; "
                             "allocated hours x runs x the market's price per GPU-hour.")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    hybrid = any(m.hybrid is not None for m in plan.markets)
    computes, allocs, final, tokens = {}, [], [], []
    for i, w in enumerate(plan.workloads):
        wl = w.id
        n = lambda q, w=wl: (lambda m: f"cmp_{w}_{q}_{m.id}")  # noqa: E731
        section(sheet, f"Workload: {w.label or wl} ({wl}, {w.gpu})")
        if hybrid:
            text_row(sheet, plan, "Priced on market", lambda m, w=w: plan.workload_market(w, m).id)
        way = w.hours_given
        if way == "flops":
            f = ("workloads", i, "flops")
            flop = formula_row(book, sheet, plan, "Training FLOP per run (FLOP/param/token x params x tokens)",
                               "FLOP", st.BIG, lambda m, c: "=" + "*".join(
                                   (inp[f + ("flops_per_param_token",)], inp[f + ("params",)],
                                    inp[f + ("tokens",)])), n("flop"))
            if w.final_run:
                tokens.append(inp[f + ("tokens",)])
            peak = inp[("workloads", i, "peak_tflops")]
            ideal = formula_row(book, sheet, plan, "Ideal GPU-hours per run (at peak FLOP/s)", "GPU-hours",
                                st.HOURS, lambda m, c: f"={at(sheet, flop, c)}/({peak}*k_flop_per_tflop)"
                                                       "/k_seconds_per_hour", n("ideal"))
        elif way == "ideal_gpu_hours":
            ideal = formula_row(book, sheet, plan, "Ideal GPU-hours per run", "GPU-hours", st.HOURS,
                                lambda m, c: f"={inp[('workloads', i, 'ideal_gpu_hours')]}", n("ideal"))
        if way in ("flops", "ideal_gpu_hours"):
            if w.utilization is not None:
                label, op, key = "Allocated GPU-hours per run (ideal x utilization)", "*", "utilization"
            else:
                label, op, key = "Allocated GPU-hours per run (ideal / MFU)", "/", "mfu"
            per_run = formula_row(book, sheet, plan, label, "GPU-hours", st.HOURS,
                                  lambda m, c: f"={at(sheet, ideal, c)}{op}{inp[('workloads', i, key)]}",
                                  n("alloc_run"))
        elif way == "cluster":
            per_run = formula_row(book, sheet, plan, "Allocated GPU-hours per run (GPUs x days x 24)",
                                  "GPU-hours", st.HOURS,
                                  lambda m, c: f"={inp[('workloads', i, 'cluster', 'gpus')]}*"
                                               f"{inp[('workloads', i, 'cluster', 'days')]}*k_hours_per_day",
                                  n("alloc_run"))
        else:
            per_run = formula_row(book, sheet, plan, "Allocated GPU-hours per run (reported)", "GPU-hours",
                                  st.HOURS, lambda m, c: f"={inp[('workloads', i, 'allocated_gpu_hours')]}",
                                  n("alloc_run"))
        runs = formula_row(book, sheet, plan, "Runs", "runs", st.COUNT,
                           lambda m, c: "=" + inp.runs(plan, w, m), n("runs"))
        alloc = formula_row(book, sheet, plan, "Allocated GPU-hours (all runs)", "GPU-hours", st.HOURS,
                            lambda m, c: f"={at(sheet, per_run, c)}*{at(sheet, runs, c)}", n("alloc"))
        allocs.append(alloc)
        price = formula_row(book, sheet, plan, f"Price per GPU-hour ({w.gpu})", f"{plan.currency}/GPU-hour",
                            money2, lambda m, c: "=" + inp.price(plan.workload_market(w, m), w.gpu),
                            n("price"))
        computes[wl] = formula_row(book, sheet, plan, "Compute", plan.currency, money0,
                                   lambda m, c: f"={at(sheet, alloc, c)}*{at(sheet, price, c)}",
                                   n("compute"), item="compute")
        if w.final_run:
            final.append(computes[wl])
        sheet.row += 1
    section(sheet, "All workloads")
    formula_row(book, sheet, plan, "Allocated GPU-hours", "GPU-hours", st.HOURS,
                lambda m, c: "=" + sum_of([at(sheet, r, c) for r in allocs]), lambda m: f"cmp_alloc_{m.id}")
    formula_row(book, sheet, plan, "Compute (all workloads, all runs)", plan.currency, money0,
                lambda m, c: "=" + sum_of([at(sheet, r, c) for r in computes.values()]),
                lambda m: f"compute_{m.id}", kind="figure", item="compute")
    sheet.row += 1
    if final:
        section(sheet, "Beside the total, never added into it")
        formula_row(book, sheet, plan, "Final-run compute (workloads marked final_run)", plan.currency, money0,
                    lambda m, c: "=" + sum_of([at(sheet, r, c) for r in final]),
                    lambda m: f"final_run_{m.id}", kind="figure", item="final_run")
    if tokens:
        formula_row(book, sheet, plan, "Training tokens of the final run", "tokens", st.BIG,
                    lambda m, c: "=" + sum_of(tokens), lambda m: f"cmp_tokens_{m.id}")
    return sheet

