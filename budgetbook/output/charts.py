"""Pictures outside the workbook (issue 26, item 3): SVG or PNG bytes of the charts the commands and `report` draw.

- `distributions`: `simulate`'s totals per market overlaid, P10/P50/P90 marked;
- `variance`: plan against actual by month per market, the actual stopping at the last billed month;
- `bridge`: the waterfall of a budget change, old total to new, one bar per changed input;
- `tornado`: `sensitivity`'s swings; `cash_flow`: the cumulative cash out by month per market.

Drawn with matplotlib (the optional `plots` extra, `pip install 'budgetbook[plots]'`): static SVG and
PNG, no JavaScript, printed as drawn; its object-oriented `Figure` API and the Agg/SVG backends,
never pyplot's global state. The SVG draws its text as paths (no font needed where it is opened) and is
the same bytes for the same input (a fixed hash salt, no date). Callers import this module through
`plotting()` (in `output/plots.py`), which names the extra when matplotlib is missing.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import matplotlib
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter

from ..ledger.variance import VarianceReport
from ..ranges.sensitivity import Sensitivity
from ..ranges.simulate import Simulation
from ..reference import MonthlyBreakdown
from ..review.bridge import Bridge
from .plaintext import terminal_safe
from .show import SYMBOLS, money

STYLE = {"text.parse_math": False, "svg.hashsalt": "budgetbook", "svg.fonttype": "path", "font.size": 9,
         "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
         "axes.titlesize": 10, "axes.titleweight": "bold", "legend.frameon": False}
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf")  # matplotlib's tab10: told apart by most colour-blind readers, and in greyscale print
RISE, FALL, TOTAL = "#d62728", "#2ca02c", "#7f7f7f"  # a cost up is red, down green, as finance colours them
PNG_DPI = 150
WIDTH = 7.5  # inches: the width of an A4 or Letter page inside its margins
FORMATS = ("svg", "png")
TORNADO_BARS = 15  # as the Sensitivity sheet's chart


def compact(value: float, currency: str) -> str:
    """An axis tick's amount: $1.2M, $350k, 12,000 CHF."""
    size = abs(value)
    digits, suffix = f"{size:,.0f}", ""
    for limit, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if size >= limit:
            digits, suffix = f"{size / limit:,.1f}".removesuffix(".0"), unit
            break
    sign = "-" if value < 0 else ""
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{digits}{suffix}" if symbol else f"{sign}{digits}{suffix} {currency}"


def _money_axis(axis, currency: str) -> None:
    axis.set_major_formatter(FuncFormatter(lambda value, _: compact(value, currency)))


@contextmanager
def _style() -> Iterator[None]:
    with matplotlib.rc_context(cast(Any, STYLE)):  # typed as matplotlib's literal keys
        yield


def _bytes(fig: Figure, fmt: str) -> bytes:
    for text in fig.findobj(Text):  # a label's control characters drawn as their escapes, as a terminal shows
        shown = terminal_safe(text.get_text())  # them (a font has no glyph for them: matplotlib warned per glyph)
        if shown != text.get_text():
            text.set_text(shown)
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buffer, format=fmt, dpi=PNG_DPI, bbox_inches="tight", metadata=metadata)
    return buffer.getvalue()


def distributions(result: Simulation, fmt: str = "svg") -> bytes:
    """Each market's simulated total development cost, overlaid; its P10, P50 and P90 marked."""
    with _style():
        fig = Figure(figsize=(WIDTH, 3.6))
        ax = fig.add_subplot()
        for n, (market, stats) in enumerate(result.markets.items()):
            color = COLORS[n % len(COLORS)]
            edges, counts = stats.histogram
            if counts:
                share = [c / result.samples for c in counts]
                ax.stairs(share, edges, fill=True, alpha=0.25, color=color)
                ax.stairs(share, edges, color=color, linewidth=1.2)
            label = result.labels.get(market, market)
            for value, style in ((stats.p10, ":"), (stats.p50, "-"), (stats.p90, ":")):
                ax.axvline(value, color=color, linestyle=style, linewidth=1.2)
            ax.plot([], [], color=color, linewidth=6, alpha=0.5,
                    label=f"{label}: P10 {money(stats.p10, result.currency)}, P50 "
                          f"{money(stats.p50, result.currency)}, P90 {money(stats.p90, result.currency)}")
        _money_axis(ax.xaxis, result.currency)
        ax.set_xlabel(f"Total development cost ({result.currency}); P50 solid, P10 and P90 dotted")
        ax.set_ylabel("Share of samples")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.0%}" if value >= 0.1 or value == 0
                                                   else f"{value:.1%}"))
        ax.set_title(f"{result.plan}: {result.samples:,} samples ({result.distribution}, seed {result.seed})",
                     loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.2), ncol=1)
        return _bytes(fig, fmt)


def variance_series(report: VarianceReport) -> list[tuple[str, list[float], list[float]]]:
    """What `variance` draws: per billed market, (its label, the plan's total each month, the actual's each billed
    month: the line stops at the last billed month, where a month not billed yet is not a zero)."""
    return [(report.label(line.market), line.plan, line.actual[:report.billed])
            for line in report.lines if line.item == "total"]


def variance(report: VarianceReport, fmt: str = "svg") -> bytes:
    """Each billed market's total, plan against actual month by month; the actual up to the last billed month."""
    months = list(range(len(report.months)))
    with _style():
        fig = Figure(figsize=(WIDTH, 3.4))
        ax = fig.add_subplot()
        for n, (label, plan, actual) in enumerate(variance_series(report)):
            color = COLORS[n % len(COLORS)]
            ax.plot(months, plan, color=color, linestyle="--", marker="o", markersize=3, label=f"{label}: plan")
            ax.plot(months[:len(actual)], actual, color=color, linestyle="-", marker="s", markersize=4,
                    linewidth=2, label=f"{label}: actual")
        if report.billed:
            ax.axvline(report.billed - 0.5, color=TOTAL, linewidth=0.8)
            ax.annotate("last billed month", (report.billed - 0.5, 0), xycoords=("data", "axes fraction"),
                        xytext=(4, 4), textcoords="offset points", ha="left", va="bottom", color=TOTAL)
        ax.set_xticks(months, report.months, rotation=45 if len(months) > 8 else 0,
                      ha="right" if len(months) > 8 else "center")
        _money_axis(ax.yaxis, report.currency)
        ax.set_ylabel(f"Development cost a month ({report.currency})")
        ax.set_title(f"{report.plan}: plan vs bills, {report.billed} of {len(months)} months billed", loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.22 if len(months) > 8 else -0.12), ncol=2)
        return _bytes(fig, fmt)


def bridge(found: Bridge, fmt: str = "svg") -> bytes:
    """The waterfall, top to bottom: the old total, one bar per change (up red, down green) starting where the one
    above ended, then the new total; horizontal, so an input's label reads whole, however many changed."""
    labels = ["old total", *(_short(step.label, 48) for step in found.steps), "new total"]
    rows = len(labels)
    with _style():
        fig = Figure(figsize=(WIDTH, 1.1 + 0.32 * rows))
        ax = fig.add_subplot()
        ax.grid(axis="y", visible=False)
        ax.barh(0, found.old, color=TOTAL)
        running = found.old
        for n, step in enumerate(found.steps, 1):
            ax.barh(n, step.delta, left=running, color=RISE if step.delta > 0 else FALL)
            ax.annotate(("+" if step.delta > 0 else "") + compact(step.delta, found.currency),
                        (max(running, running + step.delta), n), xytext=(3, 0), textcoords="offset points",
                        ha="left", va="center", fontsize=8)
            ax.plot([running, running], [n - 1.4, n + 0.4], color=TOTAL, linewidth=0.6)
            running += step.delta
        ax.plot([running, running], [rows - 2.4, rows - 1], color=TOTAL, linewidth=0.6)
        ax.barh(rows - 1, found.new, color=TOTAL)
        for n, value in ((0, found.old), (rows - 1, found.new)):
            ax.annotate(money(value, found.currency), (value, n), xytext=(3, 0), textcoords="offset points",
                        ha="left", va="center", fontsize=8, fontweight="bold")
        ax.set_yticks(range(rows), [terminal_safe(label) for label in labels])  # made at drawing: not in findobj
        ax.invert_yaxis()
        _money_axis(ax.xaxis, found.currency)
        levels = [found.old, found.new, *_levels(found)]
        low, high = min(levels), max(levels)
        span = high - low or abs(high) or 1.0
        ax.set_xlim(max(0.0, low - 0.6 * span), high + 0.25 * span)
        ax.set_title(f"{found.label}: total development cost, {money(found.old, found.currency)} to "
                     f"{money(found.new, found.currency)}", loc="left")
        return _bytes(fig, fmt)


def _levels(found: Bridge) -> list[float]:
    out, running = [], found.old
    for step in found.steps:
        running += step.delta
        out.append(running)
    return out


def _short(label: str, width: int = 32) -> str:
    return label if len(label) <= width else label[:width - 1] + "…"


def tornado(result: Sensitivity, fmt: str = "svg") -> bytes:
    """The inputs that move the total most, each alone at its low and high: the total less the base."""
    # an input this market never reads gets no bar
    shown = [s for s in result.inputs if s.swing >= 0.005][:TORNADO_BARS][::-1]
    with _style():
        fig = Figure(figsize=(WIDTH, 1.0 + 0.28 * max(len(shown), 1)))
        ax = fig.add_subplot()
        for n, swing in enumerate(shown):
            for total, color, end in ((swing.low_total, COLORS[0], "low"), (swing.high_total, COLORS[1], "high")):
                ax.barh(n, total - result.base, color=color, alpha=0.85,
                        label=f"the input at its {end}" if n == 0 else None)
        ax.set_yticks(range(len(shown)), [terminal_safe(_short(s.label, 44)) for s in shown])
        ax.axvline(0, color=TOTAL, linewidth=0.8)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: ("+" if value > 0 else "")
                                                   + compact(value, result.currency)))
        ax.set_xlabel(f"Total less the base {money(result.base, result.currency)}: each input alone at its low "
                      "and its high")
        ax.set_title(f"{result.market_label or result.market}: what moves the total development cost", loc="left")
        if shown:
            ax.legend(loc="lower right")
        return _bytes(fig, fmt)


def cash_flow(months: MonthlyBreakdown, labels: dict[str, str], fmt: str = "svg") -> bytes:
    """Each market's cumulative total month by month (the Cash flow sheet's running total)."""
    with _style():
        fig = Figure(figsize=(WIDTH, 3.0))
        ax = fig.add_subplot()
        for n, market in enumerate(months.markets):
            running = months.cumulative(market)
            ax.plot(range(len(running)), running, color=COLORS[n % len(COLORS)], marker="o", markersize=3,
                    label=labels.get(market, market))
        ax.set_xticks(range(len(months.months)), months.months, rotation=45 if len(months.months) > 8 else 0,
                      ha="right" if len(months.months) > 8 else "center")
        _money_axis(ax.yaxis, months.currency)
        ax.set_ylabel(f"Spent to date ({months.currency})")
        ax.set_title(f"{months.plan}: cumulative {'cash out' if months.view == 'cash' else 'development cost'} by "
                     "month", loc="left")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.22 if len(months.months) > 8 else -0.12), ncol=2)
        return _bytes(fig, fmt)
