"""The line items, in report order. Everything that needs to know which items exist iterates this.

Adding a line item: write its module (plan section if it has one, reference
rule, sheet builder, `ITEM`), add one line to `LINE_ITEMS`, add one test file.
The checks below refuse two items that would clash (ids, sheet titles, name
prefixes, plan keys) when the package is imported, not when a user's plan
happens to collide.
"""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from ..plan.model import Plan
from ..workbook.embed import SHEET as EMBED_SHEET
from . import commitment, compute, contingency, failed_runs, final_run, items, people, serving, storage_egress
from .base import Line, LineItem

# Tab and build order: an item that adds rows to another's sheet comes right after it.
# Report order: the lines that add into the total (in this order), then the total, then the rest.
LINE_ITEMS: tuple[LineItem, ...] = (
    compute.ITEM,
    final_run.ITEM,
    failed_runs.ITEM,
    commitment.ITEM,
    storage_egress.ITEM,
    people.ITEM,
    items.ITEM,
    contingency.ITEM,
    serving.ITEM,
)

TOTAL = Line("total", "Total development cost")
FRAME_TITLES = ("About", "Inputs", "Summary", "Procurement", "Cash flow", "Sensitivity", "Checks", EMBED_SHEET)
# defined-name prefixes of the cells outside the line items' calculations (inputs, constants, outputs)
FRAME_PREFIXES = {
    "mkt_": "market inputs (`mkt_<market>_price_<gpu>`); a label citing the market's price, live "
            "(`mkt_<market>_label`)", "wl_": "workload inputs (`wl_<workload>_mfu`)",
    "k_": "named constants (`k_seconds_per_hour`)",
    "hdr_": "market headers showing a live label (`hdr_<sheet>_<market>`: `=mkt_<market>_label`)",
    "dec_": "Summary's decision rows (`dec_total_<market>`, `dec_cheapest_<market>`, `dec_saving_<market>`, "
            "`dec_sim_p10_<market>`)",
    "sum_": "Summary rows", "prc_": "Procurement rows", "cf_": "Cash flow rows (`cf_<item>_<market>_m<n>`)",
    "chk_": "Checks rows", "checks_ok": "the master check",
    "scenario": "the scenario switch (`scenario`) and its flags (`scenario_best`, `scenario_worst`); a ranged "
                "input's used value is `<input>_used`",
    "sens_": "Sensitivity rows (`sens_low_<rank>`, `sens_swing_<rank>`)", "sim_": "Summary's simulated percentiles "
    "(`sim_p10_<market>`) and how often each market is the cheapest (`sim_cheapest_<market>`)",
    "mno_": "a sheet's market numbers, row 3, which a row's `CHOOSE` picks each column's input by "
            "(`mno_compute_<market>`)",
}


def _refuse_clashes(line_items: tuple[LineItem, ...]) -> None:
    def unique(what: str, values: list[str]) -> None:
        seen: set[str] = set()
        for value in values:
            if value.lower() in seen:
                raise ValueError(f"two line items share the {what} {value!r}")
            seen.add(value.lower())

    unique("id", [li.id for li in line_items])
    unique("sheet title", list(FRAME_TITLES) + [li.fixed_title for li in line_items if li.fixed_title])
    unique("line id", [TOTAL.id] + [line.id for li in line_items for line in li.known_lines])
    unique("name prefix", list(FRAME_PREFIXES) + [li.name_prefix for li in line_items if li.name_prefix]
           + [li.section.input_prefix for li in line_items if li.section])
    unique("plan key", list(Plan.model_fields) + [li.section.key for li in line_items if li.section])


_refuse_clashes(LINE_ITEMS)


def reserved_line_ids() -> set[str]:
    """Ids a plan's further `items` may not take: they name lines of their own."""
    return {TOTAL.id} | {line.id for li in LINE_ITEMS for line in li.known_lines}


def reserved_titles() -> set[str]:
    """Sheet titles (lower case) that plan text may not take."""
    return {t.lower() for t in FRAME_TITLES} | {li.fixed_title.lower() for li in LINE_ITEMS if li.fixed_title}


def beside_total_ids() -> set[str]:
    """Line ids reported beside the total development cost, never added into it."""
    return {line.id for li in LINE_ITEMS for line in li.known_lines if not line.in_total}


def lines(plan: Any) -> list[Line]:
    """Every line this plan reports except the total, in report order: those in the total, then those beside."""
    found = [line for li in LINE_ITEMS for line in li.lines(plan)]
    return [line for line in found if line.in_total] + [line for line in found if not line.in_total]


def development_lines(plan: Any) -> list[Line]:
    """The lines that add into the total development cost, in registry order."""
    return [line for line in lines(plan) if line.in_total]


def beside_lines(plan: Any) -> list[Line]:
    """The other magnitudes (final-run compute, serving), reported beside the total."""
    return [line for line in lines(plan) if not line.in_total]


def calc_sheet_titles(plan: Any) -> list[str]:
    """Titles of the line items' sheets of this plan, in tab order."""
    taken = reserved_titles()
    return [title for li in LINE_ITEMS for title in li.sheet_titles(plan, taken)]


# The full plan: the core (markets, workloads) and every line item's section, in registry order.
PLAN_MODEL: type[Plan] = create_model(  # type: ignore[call-overload]
    "Plan", __base__=Plan, __module__=__name__,
    **{li.section.key: (li.section.annotation, li.section.default) for li in LINE_ITEMS if li.section})
