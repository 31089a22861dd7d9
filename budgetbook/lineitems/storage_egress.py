"""`Storage & egress`: the blob tax. Checkpoint volume kept for months and moved between providers."""

from __future__ import annotations

from ..plan.model import Plan
from ..workbook import style as st
from ..workbook.rows import at, formula_row, section, start_calc_sheet, sum_of, text_row
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs


def build_storage(book: Book, plan: Plan, inp: Inputs) -> Sheet:
    sheet = start_calc_sheet(book, plan, "Storage & egress", "calc", "Storage & egress",
                             "Checkpoint volume = GB per save x saves x runs; stored per GB-month, "
                             "moved per GB of egress.")
    money0, money3 = st.money(plan.currency), st.money(plan.currency, 3)
    hybrid = any(m.hybrid is not None for m in plan.markets)
    subtotals = []
    for i, w in enumerate(plan.workloads):
        ckpt = w.checkpoints
        if ckpt is None:
            continue
        key = ("workloads", i, "checkpoints")
        n = lambda q, w=w.id: (lambda m: f"stg_{w}_{q}_{m.id}")  # noqa: E731
        section(sheet, f"Workload: {w.label or w.id} ({w.id})")
        if hybrid:
            text_row(sheet, plan, "Priced on market", lambda m, w=w: plan.workload_market(w, m).id)
        if ckpt.size_gb is not None:
            size = lambda m, c: "=" + inp[key + ("size_gb",)]  # noqa: E731
            size_label = "GB per save"
        else:
            size = lambda m, c: f"={inp[key + ('params',)]}*{inp[key + ('bytes_per_param',)]}/k_bytes_per_gb"  # noqa: E731
            size_label = "GB per save (params x bytes per param)"
        gb = formula_row(book, sheet, plan, size_label, "GB", st.VOLUME_GB, size, n("save_gb"))
        if ckpt.saves is not None:
            saves = formula_row(book, sheet, plan, "Saves per run", "saves", st.COUNT,
                                lambda m, c: "=" + inp[key + ("saves",)], n("saves"))
        else:
            saves = formula_row(book, sheet, plan, "Saves per run (steps / save every)", "saves", st.COUNT,
                                lambda m, c: f"={inp[key + ('steps',)]}/{inp[key + ('save_every_steps',)]}",
                                n("saves"))
        runs = formula_row(book, sheet, plan, "Runs", "runs", st.COUNT,
                           lambda m, c: "=" + book.ref(f"cmp_{w.id}_runs_{m.id}", sheet), n("runs"))
        volume = formula_row(book, sheet, plan, "Checkpoint volume", "GB", st.VOLUME_GB,
                             lambda m, c: f"={at(sheet, gb, c)}*{at(sheet, saves, c)}*{at(sheet, runs, c)}",
                             n("volume"))
        months = formula_row(book, sheet, plan, "Retention", "months", st.COUNT,
                             lambda m, c: "=" + inp[key + ("retention_months",)], n("months"))
        store_price = formula_row(book, sheet, plan, "Storage price", f"{plan.currency}/GB-month", money3,
                                  lambda m, c: "=" + inp.market(plan, plan.workload_market(w, m),
                                                                "storage_per_gb_month"), n("storage_price"))
        storage = formula_row(book, sheet, plan, "Storage", plan.currency, money0,
                              lambda m, c: f"={at(sheet, volume, c)}*{at(sheet, months, c)}"
                                           f"*{at(sheet, store_price, c)}", n("storage"))
        moved = formula_row(book, sheet, plan, "Share of the volume moved", "share", st.SHARE,
                            lambda m, c: "=" + inp[key + ("moved_share",)], n("moved"))
        egress_price = formula_row(book, sheet, plan, "Egress price", f"{plan.currency}/GB", money3,
                                   lambda m, c: "=" + inp.market(plan, plan.workload_market(w, m),
                                                                 "egress_per_gb"), n("egress_price"))
        egress = formula_row(book, sheet, plan, "Egress", plan.currency, money0,
                             lambda m, c: f"={at(sheet, volume, c)}*{at(sheet, moved, c)}"
                                          f"*{at(sheet, egress_price, c)}", n("egress"))
        subtotals.append(formula_row(book, sheet, plan, "Storage & egress", plan.currency, money0,
                                     lambda m, c: f"={at(sheet, storage, c)}+{at(sheet, egress, c)}",
                                     n("cost"), item="storage_egress"))
        sheet.row += 1
    section(sheet, "All workloads")
    if not subtotals:
        sheet.put(sheet.row, 1, "No workload saves checkpoints.", "note")
        sheet.row += 1
    formula_row(book, sheet, plan, "Storage & egress (all workloads)", plan.currency, money0,
                lambda m, c: "=" + (sum_of([at(sheet, r, c) for r in subtotals]) if subtotals else "k_none"),
                lambda m: f"storage_egress_{m.id}", kind="figure", item="storage_egress")
    return sheet
