"""`Options`: build or buy, live. Per market, the plan's own model (development plus own serving) against an
API over the serving horizon, and the break-even volume as a closed form of live inputs, so a finance reader
who types another API price sees it move. `planning/options.py` is its reference, written apart.
"""

from __future__ import annotations

from ..lineitems.serving import SECTION, prices_api
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.grid import Blueprint
from ..sheetkit.rows import CalcSheet, CellOf, NameOf

TITLE = "Options"
API_PRICE = CellOf("svc_api_per_million")  # the Serving sheet's API price a million tokens (one, or in and out blended)


def build_options(book: Blueprint, plan: Plan) -> None:
    serving = SECTION.of(plan)
    if serving is None or not prices_api(serving):
        return
    cur = plan.currency
    money0, money2 = st.money(cur), st.money(cur, 2)
    sheet = CalcSheet(book, plan, TITLE, "output", "Options: build or buy",
                      "The serving volume over the serving months, met by an API or by this plan's own model on "
                      "each market. Break-even: the tokens a month above which the own model costs less.")
    months = CellOf("svc_months")
    sheet.section("Own model (this plan)")
    dev = sheet.row("Development (total development cost)", cur, money0, "={total}", "opt_dev", total=NameOf("total"))
    own = sheet.row("Own serving a month (serving / months served)", cur, money0,
                    "=IF({months}>k_none,{serving}/{months},k_none)", "opt_own_month", months=months,
                    serving=NameOf("serving"))
    sheet.row("Own total over the horizon (development + serving a month x months)", cur, money0,
              "={dev}+{own}*{months}", "opt_own_total", dev=dev, own=own, months=months)
    sheet.gap()
    sheet.section("API (buy)")
    api_month = sheet.row("API a month (tokens a month / 1e6 x price per million)", cur, money0,
                          "={tokens}/k_tokens_per_million*{api}", "opt_api_month", tokens=CellOf("svc_tokens"),
                          api=API_PRICE)
    sheet.row("API total over the horizon (a month x months)", cur, money0, "={month}*{months}", "opt_api_total",
              month=api_month, months=months)
    sheet.gap()
    sheet.section("Break-even")
    margin = sheet.row("API price less own cost, per million tokens", f"{cur}/M tokens", money2,
                       "={api}-{own}", "opt_margin", api=API_PRICE, own=CellOf("svc_per_million"))
    sheet.row("Break-even tokens a month (development / (months x margin / 1e6); 0: never, the API costs less "
              "per token)", "tokens", st.SCALED,
              "=IF(AND({margin}>k_none,{months}>k_none),{dev}/({months}*{margin}/k_tokens_per_million),k_none)",
              "opt_breakeven", margin=margin, months=months, dev=dev)
