"""`show`'s physical figures table, and the outputs of `gpus` and `calibrate` (table, JSON).

`show`'s CSV and markdown add, after the figures, one row per physical figure a workload has
(`physics.physics_rows`), in the same columns: `name` is the cell's defined name on the Compute
sheet (`cmp_<workload>_mfu_<market>`), `item` the key of `show --format json`'s `workloads`.
"""

from __future__ import annotations

from typing import Any, TextIO

from ..lineitems.serving import serving_figures
from ..physics.model import WorkloadPhysics, plan_physics
from ..physics.sanity import plan_notes
from ..plan.model import Plan
from .emit import console
from .envelope import write_report
from .plain_table import print_table
from .plaintext import visible


def _hours(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def render_physics_table(plan: Plan, out: TextIO) -> None:
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
    labels = {m.id: m.label or m.id for m in plan.markets}  # as every table names a market
    market = None
    for row in rows:
        if market is not None and row.market != market:
            table.add_section()
        first = row.market != market
        market = row.market
        gpu = f"{row.gpu} {row.precision.upper()}" if row.precision != "bf16" else row.gpu
        market_cell = Text(visible(labels.get(row.market, row.market)) if first else "")
        table.add_row(market_cell, Text(visible(row.workload)), Text(visible(gpu)),
                      "" if row.flop_per_run is None else f"{row.flop_per_run:.3g}",
                      _hours(row.ideal_gpu_hours_per_run), _hours(row.allocated_gpu_hours),
                      "" if row.days_per_run is None else f"{row.days_per_run:,.1f}",
                      "" if row.gpus_for_deadline is None else f"{row.gpus_for_deadline:,.0f}",
                      "" if row.mfu is None else f"{row.mfu:.3f}" + (f" ({row.mfu_source})" if row.mfu_source
                                                                        in ("stated", "default") else ""))
    # numbers never wrap or shrink: wide enough for a hybrid's long market ids even when stdout is not a terminal
    print_table(table, console(out, 140))  # its text without rich's per-cell work, where it can
    for note in plan_notes(plan):  # what --strict lets be: the evidence's default MFU, a top-quarter one
        console(out, 140).print(Text(visible(f"Note: {note.message}")))
    render_serving_table(plan, out)


def render_serving_table(plan: Plan, out: TextIO) -> None:
    """Serving's physics per market (`lineitems.serving.serving_figures`), where the plan serves a model."""
    from rich.table import Table
    from rich.text import Text

    rows = serving_figures(plan)
    if not rows:
        return
    table = Table(title="Serving (base case): KV cache, memory, throughput, cost per million tokens",
                  title_justify="left")
    columns = (("Market", "market", None), ("KV bytes/token", "kv_bytes_per_token", ",.0f"),
               ("Memory/replica GB", "memory_per_replica_gb", ",.2f"), ("GPUs/replica", "gpus_per_replica", ",.0f"),
               ("Decode bound tok/s/GPU", "decode_tokens_per_second_per_gpu", ",.0f"),
               ("Tok/s/GPU", "tokens_per_second_per_gpu", ",.0f"), ("GPU-h/month", "gpu_hours_per_month", ",.0f"),
               ("Per M tokens", "cost_per_million_tokens", ",.4f"))
    for title, _key, fmt in columns:
        table.add_column(title, justify="left" if fmt is None else "right", no_wrap=fmt is not None,
                         overflow="fold" if fmt is None else "ellipsis")
    labels = {m.id: m.label or m.id for m in plan.markets}  # as every table names a market
    for row in rows:
        table.add_row(Text(visible(labels.get(row["market"], row["market"]))),
                      *("" if key not in row else format(row[key], fmt) for _title, key, fmt in columns[1:]))
    console(out, 140).print(table)


def render_gpus(rows: list[dict[str, Any]], fmt: str = "table", out: TextIO | None = None) -> None:
    """`gpus`: the catalog as a table or as JSON (`{"gpus": [...]}`)."""
    from rich.table import Table

    if fmt == "json":
        write_report("gpus", {"gpus": rows}, out)
        return

    table = Table(title="GPU catalog: dense peaks (no 2:4 sparsity)", title_justify="left")
    for column in ("id", "name", "BF16 TFLOP/s", "FP8 TFLOP/s", "memory GB", "HBM GB/s", "aliases", "source", "as of"):
        table.add_column(column, justify="right" if "TFLOP" in column or "GB" in column else "left",
                         no_wrap=column in ("id", "as of"))
    for g in rows:
        table.add_row(*map(visible, (g["id"], g["name"])), f"{g['dense_bf16_tflops']:,.1f}",
                      "-" if g["dense_fp8_tflops"] is None else f"{g['dense_fp8_tflops']:,.1f}",
                      f"{g['memory_gb']:g}", f"{g['memory_gb_per_s']:,.0f}",
                      *map(visible, (", ".join(g["aliases"]), g["source"], g["as_of"])))
    console(out, 160).print(table)


def render_calibration(report: dict[str, Any], fmt: str = "table", out: TextIO | None = None, *,
                       sources: bool = False) -> None:
    """`calibrate`: the verdict per workload first (one line each), then the table; the published runs in one
    line, or (`sources`) their table; or the JSON (always every run)."""
    from rich.table import Table
    from rich.text import Text

    if fmt == "json":
        write_report("calibrate", report, out)
        return
    shown = console(out, 120)
    ev = report["evidence"]
    for w in report["workloads"]:  # the verdict leads, so it never scrolls away
        said = ", ".join(part for part in (
            "" if w["mfu"] is None else f"MFU {w['mfu']:.3f}",
            "" if w["percentile"] is None else f"percentile {w['percentile']:.0f} of the published runs") if part)
        shown.print(Text(visible(f"{w['workload']}: " + (f"{said}: " if said else "") + w["verdict"])), soft_wrap=True)
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
    shown.print(table)
    for w in report["workloads"]:
        if w.get("mfu_note"):
            shown.print(Text(visible(f"Note: the MFU of {w['workload']} is the {w['mfu_note']}")))
    if not sources:
        shown.print(Text(f"Evidence: {ev['runs']} published runs, implied MFU {ev['mfu_min']:.2f}-{ev['mfu_max']:.2f} "
                         f"(median {ev['mfu_median']:.2f}); --sources lists them with their sources"), soft_wrap=True)
        return
    runs = Table(title="Published runs (implied MFU = 6 x active params x tokens / GPU-hours at the dense BF16 peak)",
                 title_justify="left")
    for column in ("run", "active params", "tokens", "GPU", "GPU-hours", "MFU", "source"):
        runs.add_column(column, justify="right" if column in ("active params", "tokens", "GPU-hours", "MFU")
                        else "left")
    for r in sorted(report["published_runs"], key=lambda r: r["mfu"]):
        runs.add_row(r["model"], f"{r['active_params']:.3g}", f"{r['tokens']:.3g}", f"{r['gpu']} {r['precision']}",
                     f"{r['gpu_hours']:,.0f}", f"{r['mfu']:.3f}", f"{r['source']} ({r['date']})")
    shown.print(runs)
