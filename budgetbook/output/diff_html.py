"""`diff --format html`: one self-contained page, the bridge (old total to new, a bar per changed input) first,
then the tables the terminal prints (totals, figures, inputs, structure, audit), markets by label.

The bridge is `review.bridge`'s, drawn by `output.charts`; the page is `output.html`'s (nothing fetched,
every text escaped, printable on A4 and Letter).
"""

from __future__ import annotations

from typing import TextIO

from ..review.bridge import Bridge
from ..review.diff import BudgetDiff
from .diff import _money_or_dash, _setting, audit_message, num_text, over_lines, pct_text, side_text, signed_money
from .emit import text
from .html import esc, figure, page, table
from .plots import plotting


def diff_page(result: BudgetDiff, found: Bridge | None) -> str:
    cur, was = result.currency, result.old.plan.currency
    title = f"Budget diff: {side_text(result.old)} -> {side_text(result.new)}"
    body = [f"<h1>{esc(title)}</h1>"]
    if not result.changed:
        body.append("<p>No change: same inputs, structure and figures.</p>")
    body += [f'<p class="bad">{esc(line)}</p>' for line in over_lines(result)]
    if found is not None and found.steps:
        body += ["<h2>Bridge</h2>", figure(plotting().bridge(found), f"Bridge of {found.label}'s total", (
            f"{found.label}, the cheapest market on the new side: each bar is one changed input's effect on the "
            "total with the inputs listed before it already changed; 'other changes' is what no input change "
            "explains (markets, workloads or lines added or removed, settings)."))]
    body += ["<h2>Total development cost</h2>", table(
        ["Market", "Old", "New", "Delta", "%"],
        [[result.label(t.market), _money_or_dash(t.old, was), _money_or_dash(t.new, cur), signed_money(t.delta, cur),
          pct_text(t)] for t in result.totals], numeric=(1, 2, 3, 4))]
    if result.figures:
        body += ["<h2>Figures changed</h2>", table(
            ["Market", "Line item", "Old", "New", "Delta", "%"],
            [[result.label(f.market), f.label, _money_or_dash(f.old, was), _money_or_dash(f.new, cur),
              signed_money(f.delta, cur), pct_text(f)] for f in result.figures], numeric=(2, 3, 4, 5),
            totals=[n for n, f in enumerate(result.figures) if f.item == "total"])]
    if result.inputs:
        body += ["<h2>Inputs</h2>", table(["Change", "Key", "Old", "New", "Source"], [
            [c.change, c.key, num_text(c.old), num_text(c.new), c.note] for c in result.inputs])]
    if result.structure:
        body += ["<h2>Structure</h2>", table(["Change", "Kind", "Key", "Old", "New"], [
            [s.change, s.kind, s.key, _setting(s.old), _setting(s.new)] for s in result.structure])]
    if result.audit:
        body += ["<h2>Workbook audit: findings on one side only</h2>", table(["Side", "Kind", "Where", "Message"], [
            [a.side, a.finding.kind, a.finding.where, audit_message(a.finding)] for a in result.audit])]
    return page(title, body)


def render_diff_html(result: BudgetDiff, found: Bridge | None, out: TextIO | None = None) -> None:
    """`diff --format html` on `out` (default: standard output)."""
    text(diff_page(result, found), out)
