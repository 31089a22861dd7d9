"""`Summary`: every figure per market, the three magnitudes kept apart, and a chart of the line items."""

from __future__ import annotations

from ..plan.model import Plan
from ..reference import ITEM_LABELS
from . import style as st
from .rows import FIRST_COL, at, formula_row, section, start_calc_sheet, sum_of
from .grid import Book, Sheet

BASE_ITEMS = ("compute", "failed_runs", "storage_egress", "people")


def line_items(plan: Plan) -> list[tuple[str, str]]:
    """(item id, label) of every line item that adds into the development total, in report order."""
    return [(i, ITEM_LABELS[i]) for i in BASE_ITEMS] + [(it.id, it.label or it.id.replace("_", " ").capitalize())
                                                        for it in plan.items]


def beside_items(plan: Plan) -> list[tuple[str, str]]:
    out = []
    if any(w.final_run for w in plan.workloads):
        out.append(("final_run", ITEM_LABELS["final_run"]))
    if plan.serving is not None:
        out.append(("serving", ITEM_LABELS["serving"]))
        if plan.serving.api_price_per_million_tokens is not None:
            out.append(("serving_api", ITEM_LABELS["serving_api"]))
    return out


def build_summary(book: Book, plan: Plan) -> Sheet:
    sheet = start_calc_sheet(book, plan, "Summary", "output", f"Summary: {plan.name}",
                             "Three magnitudes, never mixed: the compute of the final run, the total "
                             "development cost, and the serving cost paid afterwards.")
    sheet.gridlines = False
    money0 = st.money(plan.currency)
    section(sheet, "Total development cost")
    rows = []
    for item, label in line_items(plan):
        rows.append(formula_row(book, sheet, plan, label, plan.currency, money0,
                                lambda m, c, item=item: f"={item}_{m.id}",
                                lambda m, item=item: f"sum_{item}_{m.id}", item=item))
    total = formula_row(book, sheet, plan, ITEM_LABELS["total"], plan.currency, money0,
                        lambda m, c: "=" + sum_of([at(sheet, r, c) for r in rows]),
                        lambda m: f"total_{m.id}", kind="figure", item="total")
    sheet.row += 1
    beside = beside_items(plan)
    final_row = None
    if beside:
        section(sheet, "Beside the total, never added into it")
        for item, label in beside:
            r = formula_row(book, sheet, plan, label, plan.currency, money0,
                            lambda m, c, item=item: f"={item}_{m.id}",
                            lambda m, item=item: f"sum_{item}_{m.id}", item=item)
            final_row = r if item == "final_run" else final_row
        sheet.row += 1
    if f"cmp_tokens_{plan.markets[0].id}" in book.specs:
        section(sheet, "Per million training tokens (of the final run)")
        per_m = lambda m: f"({book.ref(f'cmp_tokens_{m.id}', sheet)}/k_tokens_per_million)"  # noqa: E731
        formula_row(book, sheet, plan, "Total development cost per million tokens", plan.currency,
                    st.money(plan.currency, 2), lambda m, c: f"={at(sheet, total, c)}/{per_m(m)}",
                    lambda m: f"sum_total_per_mtok_{m.id}")
        if final_row is not None:
            formula_row(book, sheet, plan, "Final-run compute per million tokens", plan.currency,
                        st.money(plan.currency, 2), lambda m, c: f"={at(sheet, final_row, c)}/{per_m(m)}",
                        lambda m: f"sum_final_per_mtok_{m.id}")
        sheet.row += 1
    sheet.put(sheet.row, 1, "All checks pass (see Checks)", "section")
    book.formula(sheet, sheet.row, FIRST_COL, "=checks_ok", "sum_checks_ok", kind="check", style="check")
    sheet.red_when_false.append(f"C{sheet.row}")
    sheet.row += 2
    sheet.chart = {"title": "Development cost by line item", "first_row": rows[0], "last_row": rows[-1],
                   "anchor": f"A{sheet.row}", "currency": plan.currency,
                   "series": [(FIRST_COL + i, m.label or m.id) for i, m in enumerate(plan.markets)]}
    return sheet
