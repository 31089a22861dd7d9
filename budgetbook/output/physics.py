"""`show`'s physical figures (FLOPs, GPU-hours, days, MFU) in the table, CSV and markdown formats.

CSV and markdown add, after the figures, one row per physical figure a workload has, in the
same columns: `name` is the cell's defined name on the Compute sheet (`cmp_<workload>_mfu_<market>`),
`item` the key of `show --format json`'s `workloads` (`allocated_gpu_hours`, `mfu`, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from ..physics import WorkloadPhysics, plan_physics
from ..plan.model import Plan
from .plaintext import visible

# (json key, defined-name suffix on the Compute sheet, what it is)
PRINTED = (
    ("flop_per_run", "flop", "FLOP per run (6ND)"),
    ("ideal_gpu_hours_per_run", "ideal", "ideal GPU-hours per run"),
    ("allocated_gpu_hours", "alloc", "allocated GPU-hours (all runs)"),
    ("mfu", "mfu", "MFU (implied, or as stated)"),
    ("days_per_run", "days", "wall-clock days per run"),
    ("gpus_for_deadline", "gpus_needed", "GPUs for the deadline"),
)


def physics_rows(plan: Plan, scenario: str = "base") -> Iterator[tuple[str, str, str, str, float]]:
    """(name, item, market, label, value) of every physical figure `show` prints (base case), or the Compute
    sheet holds in a plan scenario (`low`/`high`: the workbook's scenario switch set to best/worst)."""
    labels = {w.id: w.label or w.id for w in plan.workloads}
    for row in plan_physics(plan, scenario):
        for key, suffix, what in PRINTED:
            value = getattr(row, key)
            if value is not None:
                yield (f"cmp_{row.workload}_{suffix}_{row.market}", key, row.market,
                       f"{labels[row.workload]}: {what}", float(value))


def _hours(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def render_physics_table(plan: Plan, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Physics (base case): FLOPs, GPU-hours, wall-clock days, MFU", title_justify="left")
    for column in ("Market", "Workload", "GPU", "FLOP/run", "Ideal GPU-h/run", "Allocated GPU-h",
                   "Days/run", "GPUs for deadline", "MFU"):
        text = column in ("Market", "Workload", "GPU")
        # ids fold onto a second line rather than lose their end; numbers never wrap or shrink
        table.add_column(column, justify="left" if text else "right", no_wrap=not text,
                         overflow="fold" if text else "ellipsis")
    rows: list[WorkloadPhysics] = plan_physics(plan)
    market = None
    for row in rows:
        if market is not None and row.market != market:
            table.add_section()
        first = row.market != market
        market = row.market
        gpu = f"{row.gpu} {row.precision.upper()}" if row.precision != "bf16" else row.gpu
        table.add_row(Text(visible(row.market) if first else ""), Text(visible(row.workload)), Text(visible(gpu)),
                      "" if row.flop_per_run is None else f"{row.flop_per_run:.3g}",
                      _hours(row.ideal_gpu_hours_per_run), _hours(row.allocated_gpu_hours),
                      "" if row.days_per_run is None else f"{row.days_per_run:,.1f}",
                      "" if row.gpus_for_deadline is None else f"{row.gpus_for_deadline:,.0f}",
                      "" if row.mfu is None else f"{row.mfu:.3f}" + (" (stated)" if row.mfu_source == "stated" else ""))
    # numbers never wrap or shrink: wide enough for a hybrid's long market ids even when stdout is not a terminal
    Console(file=out, width=max(140, Console().width), highlight=False).print(table)


def render_gpus(rows: list[dict], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="GPU catalog: dense peaks (no 2:4 sparsity)", title_justify="left")
    for column in ("id", "name", "BF16 TFLOP/s", "FP8 TFLOP/s", "memory GB", "aliases", "source", "as of"):
        table.add_column(column, justify="right" if "TFLOP" in column or "GB" in column else "left",
                         no_wrap=column in ("id", "as of"))
    for g in rows:
        table.add_row(g["id"], g["name"], f"{g['dense_bf16_tflops']:,.1f}",
                      "-" if g["dense_fp8_tflops"] is None else f"{g['dense_fp8_tflops']:,.1f}",
                      f"{g['memory_gb']:g}", ", ".join(g["aliases"]), g["source"], g["as_of"])
    Console(file=out, width=max(160, Console().width), highlight=False).print(table)


def render_calibration(report: dict, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=out, width=max(120, Console().width), highlight=False)
    ev = report["evidence"]
    table = Table(title=Text(visible(f"{report['plan']}: MFU against {ev['runs']} published runs (implied "
                                     f"{ev['mfu_min']:.2f}-{ev['mfu_max']:.2f}, median {ev['mfu_median']:.2f})")),
                  title_justify="left")
    for column in ("Workload", "GPU", "MFU", "MFU (BF16 peak)", "Utilization", "Percentile", "Verdict"):
        table.add_column(column, justify="left" if column in ("Workload", "GPU", "Verdict") else "right")
    share = lambda v: "" if v is None else f"{v:.3f}"  # noqa: E731
    for w in report["workloads"]:
        source = f" ({w['mfu_source']})" if w["mfu_source"] else ""
        table.add_row(Text(visible(w["workload"])), Text(visible(w["gpu"])), share(w["mfu"]) + source,
                      share(w["mfu_bf16"]), "" if w["utilization"] is None else f"{w['utilization']:.2f}x",
                      "" if w["percentile"] is None else f"{w['percentile']:.0f} %", w["verdict"])
    console.print(table)
    runs = Table(title="Published runs (implied MFU = 6 x active params x tokens / GPU-hours at the dense BF16 peak)",
                 title_justify="left")
    for column in ("run", "active params", "tokens", "GPU", "GPU-hours", "MFU", "source"):
        runs.add_column(column, justify="right" if column in ("active params", "tokens", "GPU-hours", "MFU")
                        else "left")
    for r in sorted(report["published_runs"], key=lambda r: r["mfu"]):
        runs.add_row(r["model"], f"{r['active_params']:.3g}", f"{r['tokens']:.3g}", f"{r['gpu']} {r['precision']}",
                     f"{r['gpu_hours']:,.0f}", f"{r['mfu']:.3f}", f"{r['source']} ({r['date']})")
    console.print(runs)
