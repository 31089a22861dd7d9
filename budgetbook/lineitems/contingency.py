"""Contingency: the reserve a finance team holds for what the plan does not foresee.

Rule: a share of the development cost before contingency (compute, failed runs,
storage & egress, people and further items, on each market); it adds into the
total. It is not applied to the final-run compute (already inside compute) or
to serving (not part of development). Over time, month by month the same share
of those lines.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..plan.inputs import InputCell, walk
from ..plan.model import Plan, Strict
from ..plan.numbers import Num, num
from ..sheetkit import style as st
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from ..sheetkit.rows import CalcSheet, NameOf
from .base import Line, LineItem, Section, report_lines, rule
from .scenario import MarketView

TITLE = "Contingency"
LINE = Line("contingency", "Contingency", billed="plan")


class Contingency(Strict):
    share: Annotated[Num, num(0, 1, unit="share", description="of the development cost before contingency")]
    note: str = Field("", max_length=2000)


def input_cells(plan: Plan) -> list[InputCell]:
    section = SECTION.of(plan)
    if section is None:
        return []
    return list(walk(section, ("contingency",), (SECTION.input_prefix.rstrip("_"),), "contingency"))


SECTION = Section("contingency", Contingency | None, None, "Contingency", "cont_", input_cells,
                  examples=({"share": 0.1}, {"share": {"low": 0.05, "base": 0.1, "high": 0.2}},
                            {"share": 0, "note": "none held"}))


def lines(plan: Any) -> list[Line]:
    return [] if SECTION.of(plan) is None else [LINE]


def _before(plan: Any) -> list[Line]:
    """The lines the share applies to: every line in the total that comes before this one."""
    found = [line for line in report_lines(plan.LINE_ITEMS, plan) if line.in_total]
    return found[: found.index(LINE)] if LINE in found else found


def reference(view: MarketView) -> dict[str, float]:
    section = view.plan.contingency
    if section is None:
        return {}
    base = sum(view.lines[line.id] for line in _before(view.plan))
    return {LINE.id: base * section.share}


def monthly(view: MarketView) -> dict[str, list[float]]:
    section = view.plan.contingency
    if section is None:
        return {}
    before = [view.monthly[line.id] for line in _before(view.plan)]
    return {LINE.id: [sum(month) * section.share for month in zip(*before, strict=True)]}


def cash_flow(cf: CashFlow, plan: Plan, inp: Inputs) -> None:
    if SECTION.of(plan) is None:
        return
    cf.section(TITLE)
    before = _before(plan)
    for m in plan.markets:
        refs = {f"p{i}": cf.line_rows[(line.id, m.id)] for i, line in enumerate(before)}
        parts = "+".join(f"{{{key}}}" for key in refs) or "k_none"
        row = cf.row(f"{LINE.label} (its share of the lines above)", f"=cnt_share_{m.id}*({parts})",
                     f"cf_cnt_{m.id}", m, dict(refs), item=LINE.id)
        cf.line(LINE.id, LINE.label, m, [row])
    cf.gap()


def build(book: Blueprint, plan: Plan, inp: Inputs) -> None:
    if SECTION.of(plan) is None:
        return
    sheet = CalcSheet(book, plan, TITLE, "calc", "Contingency",
                      "A reserve for what the plan does not foresee: a share of the development cost before it.")
    money0 = st.money(plan.currency)
    before = _before(plan)
    lines: dict[str, Any] = {f"line{i}": NameOf(line.id) for i, line in enumerate(before)}  # each in its column
    base = sheet.row(f"Development cost before contingency ({', '.join(line.label for line in before)})",
                     plan.currency, money0, "=" + "+".join(f"{{line{i}}}" for i in range(len(before))), "cnt_base",
                     **lines)
    share = sheet.row("Contingency share", "share", st.SHARE, "={share}", "cnt_share",
                      share=inp[("contingency", "share")])
    sheet.row("Contingency", plan.currency, money0, "={base}*{share}", LINE.id, kind="figure", item=LINE.id,
              base=base, share=share)


ITEM = LineItem(id=LINE.id, doc=rule(__doc__), known_lines=(LINE,), lines=lines, reference=reference, build=build,
                sheet_titles=lambda plan, taken: [TITLE] if SECTION.of(plan) is not None else [],
                fixed_title=TITLE, name_prefix="cnt_", section=SECTION, monthly=monthly, cash_flow=cash_flow)
