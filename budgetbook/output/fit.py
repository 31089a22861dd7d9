"""`fit`'s outputs: the table (the solution, what binds, the breakdown at it) and JSON (`Fit.as_json`)."""

from __future__ import annotations

from typing import TextIO

from ..planning.fit import Fit
from .emit import console, stdout
from .envelope import write_report
from .plaintext import visible
from .show import money


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 1e3 and float(value).is_integer() else f"{value:,.6g}"


def render_fit(result: Fit, fmt: str, out: TextIO | None = None) -> None:
    """`fit` in `fmt` (table or json) on `out` (default: standard output), behind the guard."""
    out = stdout(out)
    if fmt == "json":
        write_report("fit", result.as_json(), out)
        return
    from rich.table import Table
    from rich.text import Text

    cur = result.currency
    title = (f"{result.plan}: {result.input} for {money(result.budget, cur)} on {result.market_label or result.market} "
             f"(total development cost, base case)")
    table = Table(title=Text(visible(title)), title_justify="left")
    table.add_column("", justify="left")
    table.add_column("Plan", justify="right")
    table.add_column("Solved", justify="right")
    table.add_row(Text(visible(result.input)), _number(result.was), _number(result.value))
    for key, value in result.follows.items():
        table.add_row(Text(visible(f"{key} (follows)")), "", _number(value))
    table.add_section()
    for line in result.breakdown:
        table.add_row(Text(visible(line["label"])), "", money(line["value"], cur))
    console(out).print(table)
    lines = [f"Binds: {result.reason} ({result.binds}); {result.method.replace('_', ' ')}; total "
             f"{money(result.total, cur)} against a budget of {money(result.budget, cur)}, fixed costs "
             f"{money(result.fixed, cur)}."]
    if result.tokens_per_param is not None:
        lines.append(f"Tokens follow the parameters at {result.tokens_per_param:g} per parameter "
                     "(Chinchilla, arXiv:2203.15556; --tokens-per-param overrides).")
    if result.days_per_run is not None:
        lines.append(f"One run: {result.days_per_run:,.1f} days on {result.gpus:,.6g} GPUs.")
    if result.deadline_days is not None and result.gpus_for_deadline is not None:
        lines.append(f"Deadline {result.deadline_days:g} days: {result.gpus_for_deadline:,.1f} GPUs a run.")
    for text in lines:
        out.write(visible(text) + "\n")
