"""Storage & egress: the blob tax. Checkpoints kept for months and moved between providers.

Rule: checkpoint volume = GB per save (stated, or parameters x bytes per
parameter) x saves (stated, or steps / save every) x runs; storage = volume x
retention months x the price per GB-month; egress = volume x the share moved x
the price per GB, both at the prices of the market the workload runs on. Over
time, storage accrues evenly over the retention months, which begin when the
run ends; egress is paid evenly over the months the workload runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..markets.registry import rate, rate_name
from ..plan.model import Plan
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, Rows, sum_or_none
from .base import Line, LineItem, one_sheet, rule
from .markets import paying_market, runs_on, shows_paying
from .phasing import kept_window, run_window
from .scenario import MarketView
from .units import BYTES_PER_GB

TITLE = "Storage & egress"
LINE = Line("storage_egress", "Storage & egress")


# --- the reference rule -------------------------------------------------------------------

def checkpoint_volume_gb(workload: Any, runs: float) -> float:
    ckpt = workload.checkpoints
    if ckpt is None:
        return 0.0
    save_gb = ckpt.size_gb if ckpt.size_gb is not None else ckpt.params * ckpt.bytes_per_param / BYTES_PER_GB
    saves = ckpt.saves if ckpt.saves is not None else ckpt.steps / ckpt.save_every_steps
    return save_gb * saves * runs


@dataclass(frozen=True)
class WorkloadStorage:
    checkpoint_gb: float
    storage: float
    egress: float


def workload_storage(view: MarketView, workload: Any) -> WorkloadStorage:
    ckpt = workload.checkpoints
    volume = checkpoint_volume_gb(workload, runs_on(workload, view.market))
    if ckpt is None:
        return WorkloadStorage(volume, 0.0, 0.0)
    pays = paying_market(view.plan, workload, view.market)
    return WorkloadStorage(volume, volume * ckpt.retention_months * rate(pays, "storage_per_gb_month"),
                           volume * ckpt.moved_share * rate(pays, "egress_per_gb"))


def reference(view: MarketView) -> dict[str, float]:
    parts = [workload_storage(view, w) for w in view.plan.workloads]
    return {LINE.id: sum(p.storage + p.egress for p in parts)}


def workload_detail(view: MarketView, workload: Any) -> dict[str, float]:
    done = workload_storage(view, workload)
    return {"checkpoint_gb": done.checkpoint_gb, "storage": done.storage, "egress": done.egress}


def monthly(view: MarketView) -> dict[str, list[float]]:
    months = [[0.0] * view.months]
    for w in view.plan.workloads:
        done = workload_storage(view, w)
        months += [view.spread(done.storage, kept_window(view.plan, w)),
                   view.spread(done.egress, run_window(view.plan, w))]
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


# --- the sheet ----------------------------------------------------------------------------

def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    sheet = CalcSheet(book, plan, TITLE, "calc", "Storage & egress",
                      "Checkpoint volume = GB per save x saves x runs; stored per GB-month, "
                      "moved per GB of egress.")
    subtotals = []
    for i, w in enumerate(plan.workloads):
        if w.checkpoints is None:
            continue
        sheet.section(f"Workload: {w.label or w.id} ({w.id})")
        if shows_paying(plan):
            sheet.text_row("Priced on market", lambda m: paying_market(plan, w, m), f"stg_{w.id}_priced_on")
        subtotals.append(_workload_rows(sheet, plan, inp, i, w))
        sheet.gap()
    sheet.section("All workloads")
    if not subtotals:
        sheet.note("No workload saves checkpoints.")
    sheet.row("Storage & egress (all workloads)", plan.currency, st.money(plan.currency), sum_or_none(subtotals),
              LINE.id, kind="figure", item=LINE.id, parts=Rows(tuple(subtotals)))


def _workload_rows(sheet: CalcSheet, plan: Plan, inp: Inputs, i: int, w: Any) -> int:
    key, name = ("workloads", i, "checkpoints"), f"stg_{w.id}"
    money0, money3 = st.money(plan.currency), st.money(plan.currency, 3)
    if w.checkpoints.size_gb is not None:
        gb = sheet.row("GB per save", "GB", st.VOLUME_GB, "={size}", f"{name}_save_gb", size=inp[key + ("size_gb",)])
    else:
        gb = sheet.row("GB per save (params x bytes per param)", "GB", st.VOLUME_GB,
                       "={params}*{bytes}/k_bytes_per_gb", f"{name}_save_gb",
                       params=inp[key + ("params",)], bytes=inp[key + ("bytes_per_param",)])
    if w.checkpoints.saves is not None:
        saves = sheet.row("Saves per run", "saves", inp.count_format(key + ("saves",)), "={saves}", f"{name}_saves",
                          saves=inp[key + ("saves",)])
    else:
        saves = sheet.row("Saves per run (steps / save every)", "saves",
                          inp.count_format(key + ("steps",), per=key + ("save_every_steps",)), "={steps}/{every}",
                          f"{name}_saves", steps=inp[key + ("steps",)], every=inp[key + ("save_every_steps",)])
    runs = sheet.row("Runs", "runs", inp.count_format(*inp.runs_paths(plan, w)), "={runs}", f"{name}_runs",
                     runs=CellOf(f"cmp_{w.id}_runs"))
    volume = sheet.row("Checkpoint volume", "GB", st.VOLUME_GB, "={gb}*{saves}*{runs}", f"{name}_volume",
                       gb=gb, saves=saves, runs=runs)
    months = sheet.row("Retention", "months", inp.count_format(key + ("retention_months",)), "={months}",
                       f"{name}_months",
                       months=inp[key + ("retention_months",)])
    store_price = sheet.row("Storage price", f"{plan.currency}/GB-month", money3, "={price}", f"{name}_storage_price",
                            price=lambda m: rate_name(inp, paying_market(plan, w, m), "storage_per_gb_month"))
    storage = sheet.row("Storage", plan.currency, money0, "={volume}*{months}*{price}", f"{name}_storage",
                        volume=volume, months=months, price=store_price)
    moved = sheet.row("Share of the volume moved", "share", st.SHARE, "={moved}", f"{name}_moved",
                      moved=inp[key + ("moved_share",)])
    egress_price = sheet.row("Egress price", f"{plan.currency}/GB", money3, "={price}", f"{name}_egress_price",
                             price=lambda m: rate_name(inp, paying_market(plan, w, m), "egress_per_gb"))
    egress = sheet.row("Egress", plan.currency, money0, "={volume}*{moved}*{price}", f"{name}_egress",
                       volume=volume, moved=moved, price=egress_price)
    return sheet.row("Storage & egress", plan.currency, money0, "={storage}+{egress}", f"{name}_cost",
                     item=LINE.id, storage=storage, egress=egress)


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    cf.section(TITLE)
    saving = [w for w in plan.workloads if w.checkpoints is not None]
    for m in plan.markets:
        rows = []
        for w in saving:
            rows.append(cf.spread(f"{w.label or w.id}: storage", f"stg_{w.id}_storage_{m.id}",
                                  cf.flags[f"kept_{w.id}"], f"cf_stg_{w.id}_storage_{m.id}", m, LINE.id))
            rows.append(cf.spread(f"{w.label or w.id}: egress", f"stg_{w.id}_egress_{m.id}",
                                  cf.flags[f"run_{w.id}"], f"cf_stg_{w.id}_egress_{m.id}", m, LINE.id))
        cf.line(LINE.id, LINE.label, m, rows)
    cf.gap()


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lambda plan: [LINE],
                reference=reference, build=build, sheet_titles=one_sheet(TITLE), fixed_title=TITLE,
                name_prefix="stg_", workload_detail=workload_detail,
                monthly=monthly, cash_flow=cash_flow)
