"""The table, CSV, Markdown and JSON (`as_json`) of `sensitivity` and `simulate`.

Plan text goes through `plaintext.visible` and CSV labels are guarded against formula injection,
as in `show.py`.
"""

from __future__ import annotations

import csv
from typing import TextIO

from ..ranges.sensitivity import Sensitivity
from ..ranges.simulate import Simulation
from .emit import console, stdout
from .envelope import write_report
from .plaintext import csv_text, visible
from .show import money

SENSITIVITY_COLUMNS = ("input", "name", "label", "low", "high", "low_total", "high_total", "swing")
SIMULATION_COLUMNS = ("market", "p10", "p50", "p90", "mean")


def _label(text: str) -> str:
    return csv_text(visible(text))  # a spreadsheet would run it (CSV injection)


def render_sensitivity(result: Sensitivity, fmt: str, out: TextIO | None = None) -> None:
    """`sensitivity` in `fmt` (table, json, csv, markdown) on `out` (default: standard output)."""
    out = stdout(out)
    if fmt == "json":
        write_report("sensitivity", result.as_json(), out)
        return
    rows = [(visible(s.input), visible(s.name), s.label, s.low, s.high, s.low_total, s.high_total, s.swing)
            for s in result.inputs]
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SENSITIVITY_COLUMNS)
        for key, name, label, *numbers in rows:
            writer.writerow([csv_text(key), csv_text(name), _label(label), *map(repr, numbers)])
        return
    if fmt == "markdown":
        cell = lambda text: str(text).replace("\\", "\\\\").replace("|", "\\|")  # noqa: E731
        out.write("| " + " | ".join(SENSITIVITY_COLUMNS) + " |\n")
        out.write("|" + "---|" * 3 + "---:|" * 5 + "\n")
        for key, name, label, *numbers in rows:
            out.write(f"| {cell(key)} | {name} | {cell(visible(label))} | "
                      + " | ".join(f"{n:,.6g}" if i < 2 else f"{n:,.2f}" for i, n in enumerate(numbers)) + " |\n")
        return
    from rich.table import Table
    from rich.text import Text

    title = (f"{result.plan}: total development cost on {result.market_label or result.market}, each input "
             f"alone at its low and high (base {money(result.base, result.currency)})")
    table = Table(title=Text(visible(title)), title_justify="left")
    for column, justify in (("Input", "left"), ("Input low", "right"), ("Input high", "right"),
                            ("Total at low", "right"),
                            ("Total at high", "right"), ("Swing", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for _key, _name, label, low, high, low_total, high_total, swing in rows:
        table.add_row(Text(visible(label)), f"{low:,.6g}", f"{high:,.6g}", money(low_total, result.currency),
                      money(high_total, result.currency), money(swing, result.currency))
    console(out).print(table)


def render_simulation(result: Simulation, fmt: str, out: TextIO | None = None) -> None:
    """`simulate` in `fmt` (table, json, csv, markdown) on `out` (default: standard output)."""
    out = stdout(out)
    if fmt == "json":
        write_report("simulate", result.as_json(), out)
        return
    markets = list(result.markets)
    if fmt in ("csv", "markdown"):
        columns = SIMULATION_COLUMNS + ("cheapest",) + tuple(f"p_cheaper_{m}" for m in markets)
        rows = []
        for market, s in result.markets.items():
            rows.append([visible(market), s.p10, s.p50, s.p90, s.mean, s.cheapest]
                        + ["" if m == market else s.cheaper[m] for m in markets])
        if fmt == "csv":
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(columns)
            for row in rows:
                writer.writerow([csv_text(row[0])] + [v if v == "" else repr(v) for v in row[1:]])
            return
        out.write("| " + " | ".join(columns) + " |\n")
        out.write("|---|" + "---:|" * (len(columns) - 1) + "\n")
        for row in rows:
            out.write(f"| {row[0]} | " + " | ".join(f"{v:,.2f}" if i < 4 else (v if v == "" else f"{v:.4f}")
                                                   for i, v in enumerate(row[1:])) + " |\n")
        return
    from rich.table import Table
    from rich.text import Text

    title = (f"{result.plan}: total development cost, {result.samples:,} samples ({result.distribution}, "
             f"seed {result.seed})")
    table = Table(title=Text(visible(title)), title_justify="left")
    for column in ("Market", "P10", "P50", "P90", "Mean", "Cheapest in"):
        table.add_column(column, justify="left" if column == "Market" else "right")
    for market, s in result.markets.items():
        table.add_row(Text(visible(result.labels.get(market, market))),
                      *(money(v, result.currency) for v in (s.p10, s.p50, s.p90, s.mean)),
                      f"{s.cheapest:.1%}")
    console(out).print(table)
