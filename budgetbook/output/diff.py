"""`diff`'s outputs (a terminal table, Markdown for a pull-request comment, JSON) and `textconv`'s budget text.

JSON is `BudgetDiff.as_json` (market ids, keys); the table and the Markdown name a
market by its label and print money as `show` does, an input's range as "(range
LOW to HIGH)" (issue 26: one look). Every text here comes from a plan or a workbook,
so it goes through `plaintext.visible`; the Markdown also escapes what a
renderer would read as table syntax or HTML, so a label cannot break the
comment or inject markup into it.
"""

from __future__ import annotations

import re
from typing import TextIO

from ..plan.numbers import Num
from ..review.diff import BudgetDiff, FigureChange
from ..review.sides import Side, Unreadable
from .emit import console as guarded_console
from .emit import stdout, text, warning
from .envelope import write_report
from .plaintext import visible
from .show import money
from .words import plural

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.\[\]-]+")
COLLAPSE_AT = 10  # Markdown lists longer than this go in a collapsed <details> block


def number(value: float) -> str:
    """An input's value as a reader reads it: 13,000,000,000; 0.023; 1.5."""
    return f"{value:,.15g}"


def num_text(num: Num | None) -> str:
    if num is None:
        return "-"
    if not num.ranged:
        return number(num.base)
    return f"{number(num.base)} (range {number(num.low)} to {number(num.high)})"


def signed_money(value: float, currency: str) -> str:
    return ("+" if value > 0 else "") + money(value, currency) if abs(value) >= 0.005 else money(0.0, currency)


def pct_text(change: FigureChange) -> str:
    if change.old is None:
        return "new"
    if change.new is None:
        return "gone"
    pct = change.pct
    return "n/a" if pct is None else f"{pct:+.1f}%"


def side_text(side: Side) -> str:
    return visible(f"{side.spec} ({side.kind})")


def _money_or_dash(value: float | None, currency: str) -> str:
    return "-" if value is None else money(value, currency)


def _setting(value: object) -> str:
    return "-" if value is None else visible(value)


def render_diff(result: BudgetDiff, fmt: str, out: TextIO | None = None) -> None:
    """`diff` in `fmt` (table, json, markdown; html: `diff_html`) on `out` (default: standard output)."""
    {"table": render_table, "markdown": render_markdown,
     "json": lambda r, o: write_report("diff", r.as_json(), o, default=str, plan=r.new.plan.name,
                                        currency=r.new.plan.currency)}[fmt](result, stdout(out))


# ---------------------------------------------------------------- the terminal table

def render_table(result: BudgetDiff, out: TextIO) -> None:
    from rich.table import Table
    from rich.text import Text

    console = guarded_console(out)
    cur, was = result.currency, result.old.plan.currency
    console.print(Text(f"{side_text(result.old)} -> {side_text(result.new)}", style="bold"))
    if not result.changed:
        console.print("no change: same inputs, structure and figures")
    totals = Table(title="Total development cost", title_justify="left")
    for column in ("Market", "Old", "New", "Delta", "%"):
        totals.add_column(column, justify="left" if column == "Market" else "right")
    for t in result.totals:
        over = t in result.over
        totals.add_row(Text(visible(result.label(t.market))), _money_or_dash(t.old, was), _money_or_dash(t.new, cur),
                       Text(signed_money(t.delta, cur), style="bold red" if over else ""), pct_text(t))
    console.print(totals)
    if result.figures:
        table = Table(title="Figures changed", title_justify="left")
        for column in ("Market", "Line item", "Old", "New", "Delta", "%"):
            table.add_column(column, justify="left" if column in ("Market", "Line item") else "right")
        for f in result.figures:
            table.add_row(Text(visible(result.label(f.market))),
                          Text(visible(f.label), style="bold" if f.item == "total" else ""),
                          _money_or_dash(f.old, was), _money_or_dash(f.new, cur), signed_money(f.delta, cur),
                          pct_text(f))
        console.print(table)
    if result.inputs:
        table = Table(title="Inputs", title_justify="left")
        for column in ("Change", "Key", "Old", "New", "Source"):
            table.add_column(column, overflow="fold")  # a key path is one word: folded, not cut
        for c in result.inputs:
            table.add_row(c.change, Text(visible(c.key)), num_text(c.old), num_text(c.new), Text(visible(c.note)))
        console.print(table)
    if result.structure:
        table = Table(title="Structure", title_justify="left")
        for column in ("Change", "Kind", "Key", "Old", "New"):
            table.add_column(column, overflow="fold")
        for s in result.structure:
            table.add_row(s.change, s.kind, Text(visible(s.key)), Text(_setting(s.old)), Text(_setting(s.new)))
        console.print(table)
    if result.audit:
        table = Table(title="Workbook audit: findings on one side only", title_justify="left")
        for column in ("Side", "Kind", "Where", "Message"):
            table.add_column(column)
        for a in result.audit:
            table.add_row(a.side, a.finding.kind, Text(visible(a.finding.where)), Text(audit_message(a.finding)))
        console.print(table)
    for line in over_lines(result):
        console.print(Text(line, style="bold red"))


def audit_message(finding) -> str:
    """A finding's message, with the value typed over a formula where it has one (the workbook shows it)."""
    typed = finding.actual
    if finding.kind == "hardcoded" and isinstance(typed, (int, float)) and not isinstance(typed, bool):
        return visible(f"{finding.message}: {typed:,.15g}")
    return visible(finding.message)


def over_lines(result: BudgetDiff) -> list[str]:
    cur = result.currency
    return [f"over --fail-above {result.limit}: {visible(result.label(t.market))} total rises "
            f"{signed_money(t.delta, cur)} ({pct_text(t)})" for t in result.over]


# ---------------------------------------------------------------- Markdown, for a pull-request comment

def md(text: object) -> str:
    """Text safe in a Markdown table cell: no table syntax, no HTML, no emphasis or code spans."""
    shown = visible(text)
    for char, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        shown = shown.replace(char, escaped)
    for char in "\\|`*_[]#~":
        shown = shown.replace(char, "\\" + char)
    return shown


def code(text: str) -> str:
    """An id or key path as a code span; anything else escaped as text."""
    return f"`{text}`" if _PLAIN_KEY.fullmatch(text) else md(text)


def _table(header: list[str], align: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _section(title: str, summary: str, lines: list[str], count: int) -> list[str]:
    """A titled block; collapsed in <details> when it lists more than COLLAPSE_AT rows."""
    if count <= COLLAPSE_AT:
        return [f"#### {title}", "", *lines, ""]
    # markdown="1": Python-Markdown (md_in_html) reads the block as Markdown too; GitHub drops the attribute
    opening = f'<details markdown="1"><summary><b>{title}</b>: {summary}</summary>'
    return [opening, "", *lines, "", "</details>", ""]


def render_markdown(result: BudgetDiff, out: TextIO) -> None:
    cur, was = result.currency, result.old.plan.currency
    lines = [f"### Budget diff: {md(side_text(result.old))} → {md(side_text(result.new))}", ""]
    if not result.changed:
        lines += ["No change: same inputs, structure and figures.", ""]
    rows = []
    for t in result.totals:
        delta = signed_money(t.delta, cur)
        rows.append([md(result.label(t.market)), _money_or_dash(t.old, was), _money_or_dash(t.new, cur),
                     f"**{delta}**" if abs(t.delta) >= 0.005 else delta, pct_text(t)])
    lines += _table(["Total development cost", "Old", "New", "Delta", "%"], ["l", "r", "r", "r", "r"], rows) + [""]
    for line in over_lines(result):
        lines += [f"> **{md(line)}**", ""]
    if result.figures:
        rows = [[md(result.label(f.market)), f"**{md(f.label)}**" if f.item == "total" else md(f.label),
                 _money_or_dash(f.old, was), _money_or_dash(f.new, cur), signed_money(f.delta, cur), pct_text(f)]
                for f in result.figures]
        lines += _section("Figures changed", plural(len(rows), 'figure'), _table(
            ["Market", "Line item", "Old", "New", "Delta", "%"], ["l", "l", "r", "r", "r", "r"], rows), len(rows))
    if result.inputs:
        rows = [[c.change, code(c.key), md(num_text(c.old)), md(num_text(c.new)), md(c.note)] for c in result.inputs]
        lines += _section("Inputs", f"{len(rows)} changed", _table(
            ["Change", "Key", "Old", "New", "Source"], ["l"] * 5, rows), len(rows))
    if result.structure:
        rows = [[s.change, s.kind, code(s.key), md(_setting(s.old)), md(_setting(s.new))] for s in result.structure]
        lines += _section("Structure", plural(len(rows), 'change'), _table(
            ["Change", "Kind", "Key", "Old", "New"], ["l"] * 5, rows), len(rows))
    if result.audit:
        rows = [[a.side, a.finding.kind, md(a.finding.where), md(audit_message(a.finding))] for a in result.audit]
        lines += _section("Workbook audit: findings on one side only", plural(len(rows), 'finding'), _table(
            ["Side", "Kind", "Where", "Message"], ["l"] * 4, rows), len(rows))
    out.write("\n".join(lines).rstrip("\n") + "\n")


# ---------------------------------------------------------------- textconv: one budget as stable text

def budget_text(side: Side) -> str:
    """One budget as lines git can diff: the figures, then every input with its source, then the audit.

    The same budget gives the same text whatever its form (plan file, or workbook as `extract` reads it),
    so `git diff` of a committed workbook shows only what changed in the budget.
    """
    cur = side.plan.currency
    lines = [f"budget {visible(side.plan.name)} ({cur})", "", "figures:"]
    lines += [f"  {visible(f.market)}  {visible(f.label)}: {f.value:,.2f}" for f in side.breakdown.figures]
    lines += ["", "inputs:"]
    for key, (cell, note) in side.inputs.items():
        lines.append(f"  {visible(key)} = {num_text(cell.num)}" + (f"  # {visible(note)}" if note else ""))
    if side.findings:
        lines += ["", "workbook audit:"]
        lines += [f"  {f.kind} {visible(f.where)}: {visible(f.message)}" for f in side.findings]
    return "\n".join(lines) + "\n"


def unreadable_text(found: Unreadable) -> str:
    """A file `textconv` cannot read as a budget: why, then its text, or its size and digest when not text."""
    head = f"budgetbook: not readable as a budget: {visible(found.reason)}\n"
    if found.text is not None:
        return head + found.text
    return head + f"{found.size:,} bytes, SHA-256 {found.sha256}\n"


def render_textconv(found: Side | Unreadable, problem: str | None, out: TextIO | None = None) -> None:
    """`textconv`: the budget as text (a file it cannot read: the problem on stderr, and the file as text)."""
    if problem is not None:  # still text, exit 0: a failing textconv would stop `git diff` altogether
        warning(problem)
    text(budget_text(found) if isinstance(found, Side) else unreadable_text(found), out)
