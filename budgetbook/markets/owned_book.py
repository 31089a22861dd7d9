"""An owned cluster in the workbook: its Inputs rows, its Cash flow rows month by month, the Ownership sheet.

The second implementation of `owned_rule.py`'s rule, in formulas over the
inputs' defined names: the Cash flow sheet holds each cluster's hours and
costs per month (in each column whose market pays it), the Ownership sheet its
asset register, the sums of those months, the book value left at the plan's
end, the cost per delivered GPU-hour and the utilization. No number is written
in a formula: the units are named constants (`k_months_per_year`, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..lineitems.base import Line
from ..lineitems.phasing import committed
from ..plan.inputs import InputCell, bounds_of, timed, walk
from ..sheetkit import style as st
from ..sheetkit.cash_flow import BEGIN_ROW, END_ROW, CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, NameOf, Rows
from .base import label_of
from .owned_model import COLOCATION_PER_KW_MONTH, GPUS_PER_RACK, Owned, catalog_tdp, per_rack
from .owned_rule import PARTS, owned_used

TITLE = "Ownership"
LABELS = {"depreciation": "Owned: depreciation", "energy": "Owned: energy", "facility": "Owned: facility",
          "maintenance": "Owned: maintenance", "financing": "Owned: financing",
          "overflow": "Owned: overflow to the fallback market"}
# how a bill can know each (`Line.billed`): a power bill, a colocation invoice and a support contract are billed as
# their lines; depreciation and the cost of capital are the plan's own accounting (the purchase invoice is the cash
# view's), which no bill carries; the overflow is GPU-hours bought on the fallback market, inside GPU spend
BILLED = {"depreciation": "plan", "energy": "line", "facility": "line", "maintenance": "line", "financing": "plan",
          "overflow": "gpu"}
LINES = tuple(Line(f"owned_{part}", LABELS[part], billed=BILLED[part]) for part in PARTS)
BOOK_VALUE = Line("owned_book_value", "Owned: book value at the plan's end", in_total=False)


def owned_markets(plan: Any) -> list[tuple[int, Any]]:
    """(index in `markets`, market) of the plan's owned markets."""
    return [(i, m) for i, m in enumerate(plan.markets) if m.owned is not None]


# --- the Inputs rows --------------------------------------------------------------------------

def input_cells(market: Any, index: int, plan: Any) -> list[InputCell]:
    label, path = label_of(market), ("markets", index, "owned")
    cells = list(walk(market, ("markets", index), ("mkt", market.id), label))
    owned = market.owned
    if owned.tdp_w is None:
        # the catalog's TDP is shown as an input, so finance sees (and may edit) it
        watts = catalog_tdp(owned.gpu) or 0.0
        cells.append(InputCell(f"mkt_{market.id}_owned_tdp_w", path + ("tdp_w",), f"{label} tdp w",
                               type(owned.count).of(watts), bounds_of(Owned, "tdp_w"), f"catalog: {owned.gpu}"))
    # the facility's price: per kW (default CBRE's) or per rack with the GPUs a rack holds; only what it reads
    if per_rack(owned):
        if owned.gpus_per_rack is None:
            cells.append(InputCell(f"mkt_{market.id}_owned_gpus_per_rack", path + ("gpus_per_rack",),
                                   f"{label} gpus per rack", type(owned.count).of(GPUS_PER_RACK),
                                   bounds_of(Owned, "gpus_per_rack"), "assumption: four 8-GPU servers a rack"))
    elif owned.colocation_per_kw_month is None:
        cells.append(InputCell(f"mkt_{market.id}_owned_colocation_per_kw_month", path + ("colocation_per_kw_month",),
                               f"{label} colocation per kw month", type(owned.count).of(COLOCATION_PER_KW_MONTH),
                               bounds_of(Owned, "colocation_per_kw_month"),
                               "CBRE North America Data Center Trends H2 2024"))
    return timed(plan, cells, path, f"mkt_{market.id}_owned", f"{label} purchase", owned.start, None)


# --- the Cash flow rows ------------------------------------------------------------------------

def held_months(inp: Inputs, i: int, market: Any) -> str:
    """The months the plan holds the cluster, as a formula's text: its `months`, else its life."""
    key = ("markets", i, "owned")
    return inp[key + ("months",)] if market.owned.months is not None else \
        f"{inp[key + ('life_years',)]}*k_months_per_year"


def timing(cf: CashFlow, plan: Any, inp: Inputs) -> None:
    for i, market in owned_markets(plan):
        key = ("markets", i, "owned")
        start, held = f"={inp[key + ('start',)]}", held_months(inp, i, market)
        cf.flag(f"own_{market.id}", f"Held and in service: {label_of(market)}", start, f"={held}")
        cf.flag(f"owndep_{market.id}", f"Depreciated (held, within its life): {label_of(market)}", start,
                f"=MIN({held},{inp[key + ('life_years',)]}*k_months_per_year)")


def _used_terms(cf: CashFlow, m: Any, owner: Any) -> tuple[dict[str, Any], list[str]]:
    """The cluster's busy hours in a month: per workload, the terms of the hours items buy on it, x its flag."""
    by_workload: dict[tuple[str, str], list[str]] = {}
    for bought in cf.gpu_hours(m):
        if bought.gpu == owner.owned.gpu and bought.market == owner.id:
            by_workload.setdefault((bought.workload, bought.flag), []).append(bought.term)
    refs: dict[str, Any] = {f"f{j}": cf.flags[flag] for j, (_, flag) in enumerate(by_workload)}
    return refs, [f"({'+'.join(terms)})*{{f{j}}}" for j, terms in enumerate(by_workload.values())]


def _cluster_rows(cf: CashFlow, plan: Any, inp: Inputs, m: Any, i: int, owner: Any) -> dict[str, int]:
    key, name, label = ("markets", i, "owned"), f"cf_own_{owner.id}", label_of(owner)
    at = {field: inp[key + (field,)] for field in ("count", "life_years", "availability", "busy_share",
                                                  "idle_share", "tdp_w", "power_ratio", "pue", "price_per_kwh",
                                                  "maintenance_share", "cost_of_capital", "start")}
    facility = ("colocation_per_rack_month", "gpus_per_rack") if per_rack(owner.owned) else ("colocation_per_kw_month",)
    at |= {field: inp[key + (field,)] for field in facility}
    hours: dict[str, Any] = {"unit": "GPU-hours", "fmt": st.HOURS}

    def row(what: str, template: str, short: str, refs: dict[str, Any], **kw: Any) -> int:
        return cf.row(f"{label}: {what}", template, f"{name}_{short}_{m.id}", m, at | refs, **kw)

    held_for = held_months(inp, i, owner)
    service = row("months in service", f"={{flag}}*{held_for}", "service",
                  {"flag": cf.flags[f"own_{owner.id}"]}, unit="months", fmt=st.COUNT)
    ageing = row("months depreciated", f"={{flag}}*MIN({held_for},{{life_years}}*k_months_per_year)", "ageing",
                 {"flag": cf.flags[f"owndep_{owner.id}"]}, unit="months", fmt=st.COUNT)
    installed = row("installed GPU-hours", "={count}*k_hours_per_month*{service}", "installed",
                    {"service": service}, **hours)
    deliverable = row("deliverable GPU-hours (x availability)", "={installed}*{availability}", "deliverable",
                      {"installed": installed}, **hours)
    for r in rented_against(plan, owner):  # the break-even against a market whose prices move reads these
        if r.id in cf.price_rows:
            row(f"deliverable GPU-hours x {label_of(r)}'s price index", "={deliverable}*{index}",
                f"deliverable_pi_{r.id}", {"deliverable": deliverable, "index": cf.price_rows[r.id]}, **hours)
    refs, terms = _used_terms(cf, m, owner)
    used = row("GPU-hours its workloads buy", "=" + ("+".join(terms) or "k_none"), "used", refs, **hours)
    held = row("busy GPU-hours (held)", "=MIN({used},{deliverable})", "held",
               {"used": used, "deliverable": deliverable}, **hours)
    over = row("overflow GPU-hours (to the fallback)", "={used}-{held}", "over", {"used": used, "held": held},
               **hours)
    idle = row("idle GPU-hours", "={installed}-{held}", "idle", {"installed": installed, "held": held}, **hours)
    elapsed = row("months in service before the month", "=MIN({life_years}*k_months_per_year,"
                  "MAX(k_none,{begin}-{start}))", "elapsed", {"begin": BEGIN_ROW}, unit="months", fmt=st.COUNT,
                  total=False)
    asset = {"purchase": f"own_{owner.id}_purchase_{m.id}", "residual": f"own_{owner.id}_residual_{m.id}",
             "service": service}
    fallback = next(x for x in plan.markets if x.id == owner.owned.fallback)
    index = None if committed(plan, fallback, owner.owned.gpu) else cf.price_rows.get(fallback.id)
    costs = {
        "depreciation": row("depreciation", "=({purchase}-{residual})/({life_years}*k_months_per_year)*{ageing}",
                            "depreciation", asset | {"ageing": ageing}, item="owned_depreciation"),
        "energy": row("energy (busy and idle draw)", "=({held}*{busy_share}+{idle}*{idle_share})*{tdp_w}*"
                      "{power_ratio}/k_watts_per_kw*{pue}*{price_per_kwh}", "energy", {"held": held, "idle": idle},
                      item="owned_energy"),
        "facility": row("facility (colocation, by the rack)", "={count}/{gpus_per_rack}*{colocation_per_rack_month}*"
                        "{service}", "facility", {"service": service}, item="owned_facility")
        if per_rack(owner.owned) else
        row("facility (colocation)", "={count}*{tdp_w}*{power_ratio}/k_watts_per_kw*"
            "{colocation_per_kw_month}*{service}", "facility", {"service": service}, item="owned_facility"),
        "maintenance": row("maintenance", "={purchase}*{maintenance_share}/k_months_per_year*{service}",
                           "maintenance", asset, item="owned_maintenance"),
        "financing": row("financing (on the book value at the month's start)",
                         "={cost_of_capital}/k_months_per_year*({purchase}-({purchase}-{residual})/"
                         "({life_years}*k_months_per_year)*{elapsed})*{service}", "financing",
                         asset | {"elapsed": elapsed}, item="owned_financing"),
        "overflow": row("overflow at the fallback's price", "={over}*{price}", "overflow",
                        {"over": over, "price": inp.price(fallback, owner.owned.gpu)}, item="owned_overflow")
        if index is None else  # the fallback's prices move: the month's price
        row("overflow at the fallback's price of the month", "={over}*{price}*{index}", "overflow",
            {"over": over, "price": inp.price(fallback, owner.owned.gpu), "index": index}, item="owned_overflow"),
    }
    # the cash view (`show --by month --view cash`): the purchase in the month it falls in, not its depreciation
    bought = row("purchase (cash view, in its month)", "=IF(AND({start}>={begin},{start}<{end}),{purchase},k_none)",
                 "purchase_cash", asset | {"begin": BEGIN_ROW, "end": END_ROW})
    row("cash out (cash view: the purchase, energy, facility, maintenance, financing, overflow)",
        "={bought}+" + "+".join(f"{{{part}}}" for part in PARTS if part != "depreciation"), "cash",
        {"bought": bought} | {part: r for part, r in costs.items() if part != "depreciation"})
    return costs


def cash_flow(cf: CashFlow, plan: Any, inp: Inputs) -> None:
    owned = owned_markets(plan)
    if not owned:
        return
    cf.section(TITLE)
    for m in plan.markets:
        paid = {owner.id for owner in owned_used(plan, m)}
        parts: dict[str, list[int]] = {part: [] for part in PARTS}
        for i, owner in owned:
            if owner.id in paid:
                for part, r in _cluster_rows(cf, plan, inp, m, i, owner).items():
                    parts[part].append(r)
        for line, part in zip(LINES, PARTS, strict=True):
            cf.line(line.id, line.label, m, parts[part])
    cf.gap()


def _breakeven(sheet: CalcSheet, plan: Any, inp: Inputs, key: tuple, name: str, owner: Any, where: Any,
               rows: dict[str, int], mine: list[int]) -> None:
    """Per rented market pricing the cluster's GPU: the share of the deliverable hours above which owning costs
    less than renting them there (0: never), as `owned_rule.breakeven` computes it."""
    cur, gpu = plan.currency, owner.owned.gpu
    rented = rented_against(plan, owner)
    if not rented:
        return
    sheet.section("Own or rent: the break-even utilization")
    at = {f: inp[key + (f,)] for f in ("tdp_w", "power_ratio", "pue", "price_per_kwh", "busy_share", "idle_share")}
    hour = sheet.row("Energy of a GPU-hour at its TDP (x ratio x PUE x price per kWh)", f"{cur}/GPU-hour",
                     st.money(cur, 4), "={energy}", f"{name}_tdp_hour",
                     energy=where(f"{at['tdp_w']}*{at['power_ratio']}/k_watts_per_kw*{at['pue']}*{at['price_per_kwh']}"))
    extra = sheet.row("A busy hour's energy beyond an idle hour's", f"{cur}/GPU-hour", st.money(cur, 4),
                      "={hour}*({busy}-{idle})", f"{name}_busy_extra", hour=hour, busy=where(at["busy_share"]),
                      idle=where(at["idle_share"]))
    fixed = sheet.row("Costs that do not follow the load (idle draw on every installed hour)", cur,
                      st.money(cur), "={p0}+{p1}+{p2}+{p3}+{installed}*{idle}*{hour}", f"{name}_fixed",
                      p0=mine[0], p1=mine[2], p2=mine[3], p3=mine[4], installed=rows["installed"],
                      idle=where(at["idle_share"]), hour=hour)
    for r in rented:
        price = inp.price(r, gpu)
        if r.price_change_per_year is None:
            sheet.row(f"Owning beats {label_of(r)} above (share of deliverable hours busy; 0: never)", "share",
                      st.SHARE, "=IF(({price}-{extra})*{deliverable}>k_none,{fixed}/(({price}-{extra})*{deliverable}),"
                      "k_none)", f"{name}_breakeven_{r.id}", price=where(price), extra=extra, fixed=fixed,
                      deliverable=rows["deliverable"])
            continue
        # its prices move: each month's deliverable hours at that month's price (the Cash flow's months)
        moved = sheet.row(f"Deliverable GPU-hours x {label_of(r)}'s price index of the month (Cash flow)",
                          "GPU-hours", st.HOURS, "={hours}", f"{name}_deliverable_pi_{r.id}",
                          hours=where(f"cf_own_{owner.id}_deliverable_pi_{r.id}_{{market}}"))
        sheet.row(f"Owning beats {label_of(r)} above (share of deliverable hours busy; 0: never)", "share",
                  st.SHARE, "=IF({price}*{moved}-{extra}*{deliverable}>k_none,{fixed}/({price}*{moved}-{extra}*"
                  "{deliverable}),k_none)", f"{name}_breakeven_{r.id}", price=where(price), extra=extra, fixed=fixed,
                  moved=moved, deliverable=rows["deliverable"])


def rented_against(plan: Any, owner: Any) -> list[Any]:
    """The rented markets pricing an owned cluster's GPU: those it has a break-even against."""
    gpu = owner.owned.gpu
    return [m for m in plan.markets if m.owned is None and m.market_kind.priced and gpu in m.gpu_prices]


def summary_rows(sheet: CalcSheet, plan: Any) -> None:
    """Summary's answer to own or rent, live: per owned cluster, the utilization above which owning beats each
    rented market pricing its GPU (0: never), and the utilization this plan keeps it at; read from the Ownership
    sheet, in the columns of the markets that pay for the cluster (the named zero elsewhere)."""
    for _, owner in owned_markets(plan):
        sheet.section(f"Own or rent: {label_of(owner)}")
        name = f"own_{owner.id}"
        for r in rented_against(plan, owner):
            sheet.row(f"Owning beats {label_of(r)} above this utilization (-: never)", "share", st.SHARE_OR_DASH,
                      "={be}", f"sum_{name}_breakeven_{r.id}", be=NameOf(f"{name}_breakeven_{r.id}"))
        sheet.row("Utilization this plan keeps it at (busy / deliverable hours)", "share", st.SHARE_OR_DASH, "={used}",
                  f"sum_{name}_utilization", used=NameOf(f"{name}_utilization"))
        sheet.gap()


# --- the Ownership sheet ------------------------------------------------------------------------

def _where_used(plan: Any, owner: Any, ref: str) -> Callable[[Any], str]:
    """`ref` (`{market}` the column's market id) where the column's market pays `owner`, the named zero elsewhere."""
    return lambda m: ref.format(market=m.id) if owner.id in {o.id for o in owned_used(plan, m)} else "k_none"


def build(book: Blueprint, plan: Any, inp: Inputs) -> None:
    owned = owned_markets(plan)
    if not owned:
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Ownership: a bought cluster, expensed over its life",
                      "The asset register, the sums of the Cash flow sheet's months (depreciation, energy at the "
                      "busy and idle draw, facility, maintenance, financing, overflow to the fallback market), the "
                      "book value left at the plan's end (beside the total, never in it) and the cost per "
                      "delivered GPU-hour.")
    cur, money0, money2 = plan.currency, st.money(plan.currency), st.money(plan.currency, 2)
    parts: dict[str, list[int]] = {part: [] for part in PARTS}
    values = []
    for i, owner in owned:
        key, name, o = ("markets", i, "owned"), f"own_{owner.id}", owner.owned
        where = lambda ref, owner=owner: _where_used(plan, owner, ref)  # noqa: E731
        sheet.section(f"Asset register: {o.count.base:g} x {o.gpu} ({label_of(owner)})")
        gpus = sheet.row("GPUs bought", "GPUs", st.COUNT, "={gpus}", f"{name}_gpus", gpus=where(inp[key + ("count",)]))
        each = (inp[key + ("price_per_gpu",)] if o.price_per_gpu is not None
                else f"{inp[key + ('price_per_server',)]}/k_gpus_per_server")
        price = sheet.row("Price per GPU (a server's price / 8)", f"{cur}/GPU", money0, "={price}",
                          f"{name}_price", price=where(each))
        chips = sheet.row("GPUs' cost", cur, money0, "={gpus}*{price}", f"{name}_chips", gpus=gpus, price=price)
        servers = sheet.row("Servers' cost (+ the rest of the server)", cur, money0, "={chips}+{chips}*{share}",
                            f"{name}_servers", chips=chips, share=where(inp[key + ("server_overhead_share",)]))
        bought = sheet.row("Purchase (+ cluster network and storage)", cur, money0, "={servers}+{servers}*{share}",
                           f"{name}_purchase", servers=servers, share=where(inp[key + ("network_share",)]))
        residual = sheet.row("Residual value at the end of its life", cur, money0, "={bought}*{share}",
                             f"{name}_residual", bought=bought, share=where(inp[key + ("residual_share",)]))
        sheet.gap()
        sheet.section("Hours over the plan (the Cash flow sheet's months)")
        rows = {}
        for short, what in (("installed", "Installed GPU-hours"), ("deliverable", "Deliverable GPU-hours"),
                            ("used", "GPU-hours its workloads buy"), ("held", "Busy GPU-hours (held)"),
                            ("over", "Overflow GPU-hours (to the fallback)"), ("idle", "Idle GPU-hours")):
            rows[short] = sheet.row(what, "GPU-hours", st.HOURS, "={hours}", f"{name}_{short}",
                                    hours=where(f"cf_own_{owner.id}_{short}_{{market}}"))
        sheet.gap()
        sheet.section("Expense over the plan")
        mine = []
        for part in PARTS:
            r = sheet.row(LABELS[part].removeprefix("Owned: ").capitalize(), cur, money0, "={cost}",
                          f"{name}_{part}", item=f"owned_{part}", cost=where(f"cf_own_{owner.id}_{part}_{{market}}"))
            parts[part].append(r)
            mine.append(r)
        spent = sheet.row("Expense (overflow aside)", cur, money0, "=SUM({parts})", f"{name}_expense",
                          parts=Rows(tuple(mine[:5])))
        life, held = inp[key + ("life_years",)], held_months(inp, i, owner)
        left = sheet.row("Share of its life left when the plan lets it go", "share", st.SHARE, "={left}",
                         f"{name}_left", left=where(f"MAX(k_none,{life}*k_months_per_year-{held})/"
                                                    f"({life}*k_months_per_year)"))
        values.append(sheet.row("Book value when the plan lets it go (residual + the rest x the life left)", cur,
                                money0,
                                "={residual}+({bought}-{residual})*{left}", f"{name}_book_value", item=BOOK_VALUE.id,
                                bought=bought, residual=residual, left=left))
        sheet.row("Cost per delivered GPU-hour", f"{cur}/GPU-hour", money2,
                  "=IF({held}>k_none,{spent}/{held},k_none)", f"{name}_per_hour", spent=spent, held=rows["held"])
        sheet.row("Utilization (busy / deliverable hours)", "share", st.SHARE,
                  "=IF({deliverable}>k_none,{held}/{deliverable},k_none)", f"{name}_utilization",
                  held=rows["held"], deliverable=rows["deliverable"])
        _breakeven(sheet, plan, inp, key, name, owner, where, rows, mine)
        sheet.gap()
    sheet.section("All owned clusters")
    for line, part in zip(LINES, PARTS, strict=True):
        sheet.row(line.label, cur, money0, "=SUM({parts})", line.id, kind="figure", item=line.id,
                  parts=Rows(tuple(parts[part])))
    sheet.row(BOOK_VALUE.label, cur, money0, "=SUM({parts})", BOOK_VALUE.id, kind="figure", item=BOOK_VALUE.id,
              parts=Rows(tuple(values)))
