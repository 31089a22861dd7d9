"""Compute: the GPU-hours a plan pays for, at each market's price.

Rule: a workload's ideal GPU-hours come from stated ideal hours, or from its
FLOPs (FLOP per parameter-token x parameters x tokens) at the GPU's peak; they
become allocated (paid) hours through a utilization multiplier or / MFU, x
the efficiency of the run's start where the workload gives its trend
(`efficiency_change_per_year`, g): (1 + g) ^ -((its start + the months from
`as_of` to the plan's start) / 12), a run's recipe and software being those
of the month it starts. A
cluster (GPUs x days x 24) or reported hours are allocated already. Compute =
allocated hours per run x runs x the price per GPU-hour of the market the
workload runs on. Over time, a workload's hours are spread evenly over the
months it runs (`start`, `months`; a cluster runs its `days`). Where that
market's prices move (`price_change_per_year`, r), month n's hours pay the
stated price x (1 + r) ^ ((n + the months from `as_of` to the plan's start) /
12), and the compute is the stated price's x the run's average price index.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..markets.registry import gpu_price
from ..plan.model import Plan
from ..plan.timing import months_after_as_of, offset_of
from ..sheetkit import style as st
from ..sheetkit.cash_flow import BEGIN_ROW, CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, CellOf, Rows
from .base import GpuHours, GpuHoursCells, Line, LineItem, one_sheet, rule
from .markets import paying_market, runs_on, shows_paying
from .phasing import committed, paid_index, run_window
from .scenario import MarketView
from .units import FLOP_PER_TFLOP, HOURS_PER_DAY, MONTHS_PER_YEAR, SECONDS_PER_HOUR

TITLE = "Compute"
LINE = Line("compute", "Compute", billed="gpu")


# --- the reference rule -------------------------------------------------------------------

def hours_per_run(workload: Any) -> tuple[float | None, float]:
    """(ideal, allocated) GPU-hours of one run; ideal is None where the hours come allocated."""
    if workload.cluster is not None:
        return None, workload.cluster.gpus * workload.cluster.days * HOURS_PER_DAY
    if workload.allocated_gpu_hours is not None:
        return None, workload.allocated_gpu_hours
    if workload.ideal_gpu_hours is not None:
        ideal = workload.ideal_gpu_hours
    else:
        flops = workload.flops
        total_flop = flops.flops_per_param_token * flops.params * flops.tokens
        ideal = total_flop / (workload.peak * FLOP_PER_TFLOP) / SECONDS_PER_HOUR
    at_start = efficiency_at_start(workload)
    if workload.utilization is not None:
        return ideal, ideal * workload.utilization * at_start
    return ideal, ideal / workload.mfu * at_start


def efficiency_at_start(workload: Any) -> Any:
    """The share of its hours a run needs for the efficiency of its start (`efficiency_change_per_year`, g):
    (1 + g) ^ -((its start + the months from `as_of` to the plan's start) / 12); 1 where the plan gives none."""
    change = workload.efficiency_change_per_year
    if change is None:
        return 1.0
    plan_start, after_as_of = workload.plan_timing
    start = offset_of(plan_start, workload.start)
    return (1 + change) ** (-((0.0 if start is None else start) + after_as_of) / MONTHS_PER_YEAR)


@dataclass(frozen=True)
class WorkloadCompute:
    pays: str                   # the market whose prices it pays
    runs: float
    ideal_hours: float | None   # all runs
    allocated_hours: float      # all runs
    cost: float
    stated_cost: float          # at the prices as stated (`as_of`); `cost` where they do not move


def moving(plan: Any) -> bool:
    """Whether some market's prices move (`price_change_per_year`): compute then has its price index rows."""
    return any(getattr(m, "price_change_per_year", None) is not None for m in plan.markets)


def workload_compute(view: MarketView, workload: Any) -> WorkloadCompute:
    """A workload's hours and compute on the view's market, worked out once per view (five line items ask)."""
    key = (LINE.id, id(workload))  # the view's resolved workloads live as long as the view
    done = view.memo.get(key)
    if done is None:
        done = view.memo[key] = _workload_compute(view, workload)
    return done


def _workload_compute(view: MarketView, workload: Any) -> WorkloadCompute:
    pays = paying_market(view.plan, workload, view.market)
    runs = runs_on(workload, view.market)
    ideal, allocated = hours_per_run(workload)
    allocated_hours = allocated * runs
    stated = allocated_hours * gpu_price(pays, workload.gpu)
    index = paid_index(view, pays, workload.gpu)
    cost = stated if index is None else stated * sum(
        share * i for share, i in zip(view.spread(1, run_window(view.plan, workload)), index, strict=True))
    return WorkloadCompute(pays.id, runs, None if ideal is None else ideal * runs, allocated_hours, cost, stated)


def reference(view: MarketView) -> dict[str, float]:
    return {LINE.id: sum(workload_compute(view, w).cost for w in view.plan.workloads)}


def _months(view: MarketView, workload: Any) -> list[float]:
    done = workload_compute(view, workload)
    index = paid_index(view, paying_market(view.plan, workload, view.market), workload.gpu)
    if index is None:
        return view.spread(done.cost, run_window(view.plan, workload))
    return [m * i for m, i in zip(view.spread(done.stated_cost, run_window(view.plan, workload)), index, strict=True)]


def monthly(view: MarketView) -> dict[str, list[float]]:
    months = [_months(view, w) for w in view.plan.workloads]
    return {LINE.id: [sum(month) for month in zip(*months, strict=True)]}


def gpu_hours(view: MarketView) -> list[GpuHours]:
    """Each workload's allocated hours (all runs), on the market it pays, over its run."""
    out = []
    for w in view.plan.workloads:
        done = workload_compute(view, w)
        out.append(GpuHours(w.id, w.gpu, done.pays, done.allocated_hours, run_window(view.plan, w)))
    return out


def workload_detail(view: MarketView, workload: Any) -> dict[str, Any]:
    done = workload_compute(view, workload)
    return {"pays": done.pays, "runs": done.runs, "ideal_hours": done.ideal_hours,
            "allocated_hours": done.allocated_hours, "compute": done.cost}


# --- the sheet ----------------------------------------------------------------------------

def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    sheet = CalcSheet(book, plan, TITLE, "calc", "Compute",
                      "Ideal GPU-hours become allocated (paid) hours through utilization or MFU; "
                      "allocated hours x runs x the market's price per GPU-hour.")
    money0, money2 = st.money(plan.currency), st.money(plan.currency, 2)
    allocs, computes = [], []
    for i, w in enumerate(plan.workloads):
        key, name = ("workloads", i), f"cmp_{w.id}"
        sheet.section(f"Workload: {w.label or w.id} ({w.id}, {w.gpu})")
        if shows_paying(plan):
            sheet.text_row("Priced on market", lambda m: paying_market(plan, w, m), f"{name}_priced_on")
        per_run, eff = _hours_per_run_rows(sheet, inp, w, key, name)
        runs = sheet.row("Runs", "runs", inp.count_format(*inp.runs_paths(plan, w)), "={runs}", f"{name}_runs",
                         runs=lambda m: inp.runs(plan, w, m))
        alloc = sheet.row("Allocated GPU-hours (all runs)", "GPU-hours", st.HOURS, "={per_run}*{runs}",
                          f"{name}_alloc", per_run=per_run, runs=runs)
        _physics_rows(sheet, inp, w, key, name, per_run, eff)
        price = sheet.row(f"Price per GPU-hour ({w.gpu})", f"{plan.currency}/GPU-hour", money2, "={price}",
                          f"{name}_price", price=lambda m: inp.price(paying_market(plan, w, m), w.gpu))
        if moving(plan):  # the run's average price index, from the Cash flow's months (`cash_flow` below)
            stated = sheet.row("Compute at the prices as stated (as_of)", plan.currency, money0, "={alloc}*{price}",
                               f"{name}_stated", alloc=alloc, price=price)
            index = sheet.row("Average price index over the run (Cash flow)", "x stated", st.SHARE, "={index}",
                              f"{name}_price_index", index=partial(_index_name, plan, w))
            computes.append(sheet.row("Compute", plan.currency, money0, "={stated}*{index}", f"{name}_compute",
                                      item=LINE.id, stated=stated, index=index))
        else:
            computes.append(sheet.row("Compute", plan.currency, money0, "={alloc}*{price}", f"{name}_compute",
                                      item=LINE.id, alloc=alloc, price=price))
        allocs.append(alloc)
        sheet.gap()
    sheet.section("All workloads")
    sheet.row("Allocated GPU-hours", "GPU-hours", st.HOURS, "=SUM({parts})", "cmp_alloc", parts=Rows(tuple(allocs)))
    sheet.row("Compute (all workloads, all runs)", plan.currency, money0, "=SUM({parts})", LINE.id,
              kind="figure", item=LINE.id, parts=Rows(tuple(computes)))
    sheet.gap()


def _hours_per_run_rows(sheet: CalcSheet, inp: Inputs, w: Any, key: tuple, name: str) -> tuple[int, int | None]:
    """The rows from the workload's way of giving hours to its allocated GPU-hours per run; and the row of the
    efficiency at its start, where it gives a trend."""
    way = w.hours_given
    if way == "cluster":
        return sheet.row("Allocated GPU-hours per run (GPUs x days x 24)", "GPU-hours", st.HOURS,
                         "={gpus}*{days}*k_hours_per_day", f"{name}_alloc_run",
                         gpus=inp[key + ("cluster", "gpus")], days=inp[key + ("cluster", "days")]), None
    if way == "allocated_gpu_hours":
        return sheet.row("Allocated GPU-hours per run (reported)", "GPU-hours", st.HOURS, "={hours}",
                         f"{name}_alloc_run", hours=inp[key + ("allocated_gpu_hours",)]), None
    if way == "flops":
        flops = key + ("flops",)
        flop = sheet.row("Training FLOP per run (FLOP/param/token x params x tokens)", "FLOP", st.BIG,
                         "={per}*{params}*{tokens}", f"{name}_flop", per=inp[flops + ("flops_per_param_token",)],
                         params=inp[flops + ("params",)], tokens=inp[flops + ("tokens",)])
        ideal = sheet.row("Ideal GPU-hours per run (at peak FLOP/s)", "GPU-hours", st.HOURS,
                          "={flop}/({peak}*k_flop_per_tflop)/k_seconds_per_hour", f"{name}_ideal",
                          flop=flop, peak=inp[key + ("peak_tflops",)])
    else:
        ideal = sheet.row("Ideal GPU-hours per run", "GPU-hours", st.HOURS, "={hours}", f"{name}_ideal",
                          hours=inp[key + ("ideal_gpu_hours",)])
    trend, at_start = "", dict[str, Any]()
    if w.efficiency_change_per_year is not None:  # the efficiency of the month the run starts
        trend, at_start = " x efficiency at its start", {"eff": sheet.row(
            "Efficiency at the run's start ((1 + change a year) ^ -((start + months after as_of) / 12))",
            "x hours", st.SHARE, "=(k_one+{change})^(-({start}+{offset})/k_months_per_year)",
            f"{name}_efficiency", change=inp[key + ("efficiency_change_per_year",)], start=inp[key + ("start",)],
            offset=OFFSET)}
    if w.utilization is not None:
        return sheet.row(f"Allocated GPU-hours per run (ideal x utilization{trend})", "GPU-hours", st.HOURS,
                         "={ideal}*{utilization}" + ("*{eff}" if trend else ""), f"{name}_alloc_run", ideal=ideal,
                         utilization=inp[key + ("utilization",)], **at_start), at_start.get("eff")
    return sheet.row(f"Allocated GPU-hours per run (ideal / MFU{trend})", "GPU-hours", st.HOURS,
                     "={ideal}/{mfu}" + ("*{eff}" if trend else ""), f"{name}_alloc_run", ideal=ideal,
                     mfu=inp[key + ("mfu",)], **at_start), at_start.get("eff")


def _physics_rows(sheet: CalcSheet, inp: Inputs, w: Any, key: tuple, name: str, per_run: int,
                  eff: int | None) -> None:
    """Issue 13: the workload's model against its hours (MFU), its wall-clock days, the GPUs for its deadline.

    `physics.py` is the reference of these rows, written apart; none of them changes a cost.
    """
    way = w.hours_given
    if w.flops is not None:
        if way == "flops":
            ideal: Any = CellOf(f"{name}_ideal")
        else:  # hours given otherwise, the model beside them: its 6ND ideal, to judge the hours by
            flops = key + ("flops",)
            flop = sheet.row("Training FLOP per run (model: FLOP/param/token x params x tokens)", "FLOP", st.BIG,
                             "={per}*{params}*{tokens}", f"{name}_flop", per=inp[flops + ("flops_per_param_token",)],
                             params=inp[flops + ("params",)], tokens=inp[flops + ("tokens",)])
            ideal = sheet.row("Ideal GPU-hours per run (model, at peak FLOP/s)", "GPU-hours", st.HOURS,
                              "={flop}/({peak}*k_flop_per_tflop)/k_seconds_per_hour",
                              f"{name}_flops_ideal" if way == "ideal_gpu_hours" else f"{name}_ideal",
                              flop=flop, peak=inp[key + ("peak_tflops",)])
        sheet.row("MFU (model's ideal GPU-hours at peak / allocated GPU-hours per run)", "share of peak", st.SHARE,
                  "={ideal}/{per_run}", f"{name}_mfu", ideal=ideal, per_run=per_run)
    elif w.mfu is not None and eff is not None:
        sheet.row("MFU at the run's start (as stated / efficiency at its start)", "share of peak", st.SHARE,
                  "={mfu}/{eff}", f"{name}_mfu", mfu=inp[key + ("mfu",)], eff=eff)
    elif w.mfu is not None:
        sheet.row("MFU (as stated)", "share of peak", st.SHARE, "={mfu}", f"{name}_mfu", mfu=inp[key + ("mfu",)])
    gpus = key + ("gpus",) if w.gpus is not None else key + ("cluster", "gpus") if w.cluster is not None else None
    if gpus is not None:
        sheet.row("Wall-clock days per run (allocated GPU-hours per run / GPUs / 24)", "days", st.COUNT,
                  "={per_run}/{gpus}/k_hours_per_day", f"{name}_days", per_run=per_run, gpus=inp[gpus])
    if w.deadline_days is not None:
        sheet.row("GPUs for the deadline (allocated GPU-hours per run / (deadline days x 24))", "GPUs", st.COUNT,
                  "={per_run}/({days}*k_hours_per_day)", f"{name}_gpus_needed", per_run=per_run,
                  days=inp[key + ("deadline_days",)])


def _index_name(plan: Plan, w: Any, market: Any) -> str:
    """The run's average price index on the Cash flow (`cf_pidx_<workload>_<market>`), or the named one."""
    pays = paying_market(plan, w, market)
    moves = pays.price_change_per_year is not None and not committed(plan, pays, w.gpu)
    return f"cf_pidx_{w.id}_{market.id}" if moves else "k_one"


def _moves(plan: Plan, w: Any, market: Any, index: dict[str, int]) -> bool:
    pays = paying_market(plan, w, market)
    return pays.id in index and not committed(plan, pays, w.gpu)


def trending(plan: Any) -> bool:
    """Whether some workload gives its efficiency's trend: its hours then read the months from `as_of`."""
    return any(w.efficiency_change_per_year is not None for w in plan.workloads)


OFFSET = "cf_months_after_as_of"  # the Cash flow's months from the prices' date (`as_of`) to the plan's start


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    if not moving(plan):
        if trending(plan):
            cf.section("The prices' date: the efficiency of a run's start counts the months from it")
            cf.constant("Months from the prices' date (as_of) to the plan's start", months_after_as_of(plan),
                        OFFSET, "months")
            cf.gap()
        cf.per_run(TITLE, plan, LINE, "compute", "cmp_{w}_compute_{m}", "cf_cmp")
        return
    cf.section("Price index: each month's price / the price as stated (as_of)")
    offset = cf.constant("Months from the prices' date (as_of) to the plan's start", months_after_as_of(plan),
                         OFFSET, "months")
    index = {m.id: cf.row(f"Price index: {m.label or m.id} ((1 + change a year) ^ (months after as_of / 12))",
                          "=(k_one+{change})^(({begin}+{offset})/k_months_per_year)", f"cf_pi_{m.id}", m,
                          {"change": inp.market(plan, m, "price_change_per_year"), "begin": BEGIN_ROW,
                           "offset": offset}, total=False, unit="x stated", fmt=st.SHARE)
             for m in plan.markets if m.price_change_per_year is not None}
    cf.price_rows.update(index)  # a commitment's fallback reads them (`commitment.cash_flow`)
    cf.gap()
    cf.section(TITLE)
    for m in plan.markets:
        moves = [(w, index[paying_market(plan, w, m).id]) for w in plan.workloads if _moves(plan, w, m, index)]
        for w, pi in moves:  # the Total column is the run's average price index, which Compute reads
            cf.row(f"{w.label or w.id}: price index x share of the run", "={flag}*{index}", f"cf_pidx_{w.id}_{m.id}",
                   m, {"flag": cf.flags[f"run_{w.id}"], "index": pi}, unit="x stated", fmt=st.SHARE)
        rows = []  # a line's rows are contiguous, just above it
        for w in plan.workloads:
            flag, pays = cf.flags[f"run_{w.id}"], paying_market(plan, w, m)
            if _moves(plan, w, m, index):
                rows.append(cf.row(f"{w.label or w.id}: compute", "={stated}*{flag}*{index}",
                                   f"cf_cmp_{w.id}_{m.id}", m, {"stated": f"cmp_{w.id}_stated_{m.id}", "flag": flag,
                                                                "index": index[pays.id]}, item=LINE.id, total=False))
            else:
                rows.append(cf.spread(f"{w.label or w.id}: compute", f"cmp_{w.id}_compute_{m.id}", flag,
                                      f"cf_cmp_{w.id}_{m.id}", m, LINE.id))
        cf.line(LINE.id, LINE.label, m, rows)
    cf.gap()


def gpu_hours_cells(plan: Plan, market: Any) -> list[GpuHoursCells]:
    return [GpuHoursCells(w.id, w.gpu, paying_market(plan, w, market).id, f"cmp_{w.id}_alloc_{market.id}",
                          f"run_{w.id}") for w in plan.workloads]


ITEM = LineItem(
    id=LINE.id, doc=rule(__doc__),
    known_lines=(LINE,), lines=lambda plan: [LINE], reference=reference, build=build,
    sheet_titles=one_sheet(TITLE), fixed_title=TITLE, name_prefix="cmp_", workload_detail=workload_detail,
    monthly=monthly, cash_flow=cash_flow, gpu_hours=gpu_hours, gpu_hours_cells=gpu_hours_cells)
