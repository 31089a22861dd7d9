"""`Serving`: the third magnitude, paid per request after training; reported beside the total."""

from __future__ import annotations

from ..plan.model import Plan
from ..workbook import style as st
from ..workbook.rows import at, formula_row, start_calc_sheet, text_row
from ..workbook.grid import Book, Sheet
from ..workbook.names import Inputs


def build_serving(book: Book, plan: Plan, inp: Inputs) -> Sheet:
    serving = plan.serving
    sheet = start_calc_sheet(book, plan, "Serving", "calc", "Serving",
                             "Tokens per month / tokens per second per GPU = GPU-hours per month, x months "
                             "x price. Never added into the development total.")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    n = lambda q: (lambda m: f"svc_{q}_{m.id}")  # noqa: E731
    if any(m.hybrid is not None for m in plan.markets):
        text_row(sheet, plan, "Served on market", lambda m: plan.serving_market(m).id)
    if serving.tokens_per_month is not None:
        volume = lambda m, c: "=" + inp[("serving", "tokens_per_month")]  # noqa: E731
        label = "Tokens per month"
    else:
        volume = lambda m, c: f"={inp[('serving', 'requests_per_month')]}*{inp[('serving', 'tokens_per_request')]}"  # noqa: E731
        label = "Tokens per month (requests x tokens per request)"
    tokens = formula_row(book, sheet, plan, label, "tokens", st.BIG, volume, n("tokens"))
    hours = formula_row(book, sheet, plan, "GPU-hours per month (tokens / tokens per second / 3600)",
                        "GPU-hours", st.HOURS,
                        lambda m, c: f"={at(sheet, tokens, c)}/{inp[('serving', 'tokens_per_second_per_gpu')]}"
                                     "/k_seconds_per_hour", n("gpu_hours"))
    months = formula_row(book, sheet, plan, "Months served", "months", st.COUNT,
                         lambda m, c: "=" + inp[("serving", "months")], n("months"))
    price = formula_row(book, sheet, plan, f"Price per GPU-hour ({serving.gpu})", f"{plan.currency}/GPU-hour",
                        money2, lambda m, c: "=" + inp.price(plan.serving_market(m), serving.gpu), n("price"))
    formula_row(book, sheet, plan, "Serving (own GPUs)", plan.currency, money0,
                lambda m, c: f"={at(sheet, hours, c)}*{at(sheet, months, c)}*{at(sheet, price, c)}",
                lambda m: f"serving_{m.id}", kind="figure", item="serving")
    if serving.api_price_per_million_tokens is not None:
        sheet.row += 1
        api = inp[("serving", "api_price_per_million_tokens")]
        formula_row(book, sheet, plan, "Serving via API (buy): tokens x months / 1e6 x price per million",
                    plan.currency, money0,
                    lambda m, c: f"={at(sheet, tokens, c)}*{at(sheet, months, c)}/k_tokens_per_million*{api}",
                    lambda m: f"serving_api_{m.id}", kind="figure", item="serving_api")
    return sheet
