"""`options`' outputs: a table or Markdown of the options side by side, the cheapest named; JSON (`Options.as_json`)."""

from __future__ import annotations

from typing import TextIO

from ..planning.options import Options
from .emit import console, stdout
from .envelope import write_report
from .plaintext import visible
from .show import money

COLUMNS = ("Option", "Kind", "Development", "Serving a month", "Total", "Break-even tokens a month")


def _breakeven(value: float | None) -> str:
    if value is None:
        return "never (API cheaper per token)"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if value >= scale:
            return f"{value / scale:,.2f}{suffix}"
    return f"{value:,.0f}"


def render_options(result: Options, fmt: str, out: TextIO | None = None) -> None:
    """`options` in `fmt` (table, json, markdown) on `out` (default: standard output), behind the guard."""
    out = stdout(out)
    if fmt == "json":
        write_report("options", result.as_json(), out)
        return
    cur = result.currency
    rows = [(o.label, o.kind, money(o.development, cur), money(o.serving_per_month, cur), money(o.total, cur),
             "" if o.kind == "api" else _breakeven(o.breakeven_tokens_per_month)) for o in result.options]
    cheapest = result.cheapest
    summary = (f"Cheapest over {result.months:g} months at {_breakeven(result.tokens_per_month)} tokens a month: "
               f"{cheapest.label} ({money(cheapest.total, cur)}).")
    first = result.crossover
    if first is not None:
        summary += (f" The API below {_breakeven(first.breakeven_tokens_per_month)} tokens a month, "
                    f"then {first.label}.")
    if fmt == "markdown":
        cell = lambda text: visible(str(text)).replace("\\", "\\\\").replace("|", "\\|")  # noqa: E731
        out.write("| " + " | ".join(COLUMNS) + " |\n|---|---|---:|---:|---:|---:|\n")
        for row in rows:
            out.write("| " + " | ".join(cell(v) for v in row) + " |\n")
        out.write("\n" + visible(summary) + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(visible(f"{result.plan}: build or buy ({cur})")), title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("Option", "Kind") else "right")
    for row in rows:
        table.add_row(Text(visible(row[0])), *row[1:])
    console(out).print(table)
    out.write(visible(summary) + "\n")
