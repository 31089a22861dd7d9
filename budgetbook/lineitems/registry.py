"""The line items, in report order. Everything that needs to know which items exist iterates this.

Adding a line item: write its module (plan section if it has one, reference
rule, sheet builder, `ITEM`), add one line to `LINE_ITEMS`, add one test file.
A test may add an item of its own for a while: `with LINE_ITEMS.including(item):`.
The checks below refuse two items that would clash (ids, sheet titles, name
prefixes, plan keys) when the package is imported, not when a user's plan
happens to collide.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..markets.registry import LINE_ITEMS as KIND_ITEMS
from ..plan.model import Plan
from . import (
    adjustments,
    base,
    budget_fit,
    commitment,
    compute,
    contingency,
    failed_runs,
    final_run,
    gap,
    items,
    people,
    reliability,
    scope,
    serving,
    stages,
    storage_egress,
)
from .base import FRAME_TITLES, TOTAL, GpuHours, Line, LineItem


class LineItems(Sequence[LineItem]):
    """The registry's items, in order; `including` adds items for a while (a test's own item)."""

    def __init__(self, items: tuple[LineItem, ...]):
        self._items = items

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[LineItem]:
        return iter(self._items)

    def __add__(self, other: Sequence[LineItem]) -> tuple[LineItem, ...]:
        return self._items + tuple(other)

    @contextmanager
    def including(self, *items: LineItem) -> Iterator[None]:
        """These items after the registry's, until the block ends. An item with a plan section changes the
        plan model, which is made once: it goes in `LINE_ITEMS` itself."""
        for item in items:
            if item.section is not None:
                raise ValueError(f"line item {item.id!r} has a plan section: list it in LINE_ITEMS")
        before = self._items
        _refuse_clashes(before + items)
        self._items = before + items
        try:
            yield
        finally:
            self._items = before


# Tab and build order: an item that adds rows to another's sheet comes right after it.
# Report order: the lines that add into the total (in this order), then the total, then the rest.
LINE_ITEMS = LineItems((
    compute.ITEM,
    final_run.ITEM,
    stages.ITEM,
    failed_runs.ITEM,
    commitment.ITEM,
    storage_egress.ITEM,
    people.ITEM,
    reliability.ITEM,
    items.ITEM,
    *KIND_ITEMS,  # the market kinds' own lines (`MarketKind.line_items`), in the contingency's base
    contingency.ITEM,
    adjustments.ITEM,  # after the contingency: finance's own lines take no reserve
    serving.ITEM,
    scope.ITEM,  # no line: gives serving its volume and `options` its candidates
    budget_fit.ITEM,  # no line: the plan's budget, and what it buys on the Fit sheet
))

# defined-name prefixes of the cells outside the line items' calculations (inputs, constants, outputs)
FRAME_PREFIXES = {
    "mkt_": "market inputs (`mkt_<market>_price_<gpu>`); a label citing the market's price, live "
            "(`mkt_<market>_label`)", "wl_": "workload inputs (`wl_<workload>_mfu`)",
    "k_": "named constants (`k_seconds_per_hour`)",
    "hdr_": "market headers showing a live label (`hdr_<sheet>_<market>`: `=mkt_<market>_label`)",
    "dec_": "Summary's decision rows (`dec_total_<market>`, `dec_cheapest_<market>`, `dec_saving_<market>`, "
            "`dec_sim_p10_<market>`)",
    "gap_": "the gap to the cheapest market by category, Procurement's figures (`gap_gpu_price_<market>`)",
    "sum_": "Summary rows", "prc_": "Procurement rows", "opt_": "Options rows (`opt_breakeven_<market>`)",
    "cf_": "Cash flow rows (`cf_<item>_<market>_m<n>`)",
    "chk_": "Checks rows", "checks_ok": "the master check",
    "scenario": "the scenario switch (`scenario`) and its flags (`scenario_best`, `scenario_worst`); a ranged "
                "input's used value is `<input>_used`",
    "sens_": "Sensitivity rows (`sens_low_<rank>`, `sens_swing_<rank>`)", "sim_": "Summary's simulated percentiles "
    "(`sim_p10_<market>`) and how often each market is the cheapest (`sim_cheapest_<market>`)",
    "mno_": "a sheet's market numbers, row 3, which a row's `CHOOSE` picks each column's input by "
            "(`mno_compute_<market>`)",
}


def _prefix_owners(line_items: Sequence[LineItem]) -> list[tuple[str, str]]:
    """Every defined-name prefix with who owns it: the frame, an item's calculations, a section's inputs."""
    owners = [(prefix, f"the frame's prefix {prefix!r} ({meaning.split(' (')[0]})")
              for prefix, meaning in FRAME_PREFIXES.items()]
    owners += [(li.name_prefix, f"the name prefix {li.name_prefix!r} of line item {li.id!r}")
               for li in line_items if li.name_prefix]
    owners += [(li.section.input_prefix, f"the input prefix {li.section.input_prefix!r} of the `{li.section.key}:` "
                                         f"section of line item {li.id!r}") for li in line_items if li.section]
    return owners


def _refuse_shared_prefixes(line_items: Sequence[LineItem]) -> None:
    """Inputs, calculations and the frame's cells share one namespace of defined names: no prefix may equal
    another, or begin it (every name under `srv_api_` would be under `srv_` too)."""
    owners = _prefix_owners(line_items)
    for i, (prefix, owner) in enumerate(owners):
        for other, other_owner in owners[i + 1:]:
            if other.lower().startswith(prefix.lower()) or prefix.lower().startswith(other.lower()):
                how = "is also" if prefix.lower() == other.lower() else "overlaps"
                raise RegistryClash(
                    f"{other_owner} {how} {owner}: section inputs, line-item calculations and the frame's "
                    "cells share one namespace of defined names; give one of them a prefix of its own")


class RegistryClash(ValueError):
    """Two registered line items (or one and the frame) claim one id, title, prefix or plan key."""


def _refuse_clashes(line_items: Sequence[LineItem]) -> None:
    def unique(what: str, values: list[str]) -> None:
        seen: set[str] = set()
        for value in values:
            if value.lower() in seen:
                raise RegistryClash(f"two line items share the {what} {value!r}")
            seen.add(value.lower())

    unique("id", [li.id for li in line_items])
    unique("sheet title", list(FRAME_TITLES) + [li.fixed_title for li in line_items if li.fixed_title])
    unique("line id", [TOTAL.id] + [line.id for line in gap.LINES] + [line.id for li in line_items
                                                                       for line in li.known_lines])
    _refuse_shared_prefixes(line_items)
    unique("plan key", list(Plan.model_fields) + [li.section.key for li in line_items if li.section])


_refuse_clashes(tuple(LINE_ITEMS))


def built_in_lines() -> dict[str, str]:
    """Line id -> whose it is, for every line a built-in item may report and the total: a plan's further
    `items` of one of these ids take `<id>_item` as their line (`items.line_ids`)."""
    return base.built_in_lines(LINE_ITEMS) | {line.id: f"`{line.label}` (the gap to the cheapest)"
                                               for line in gap.LINES}


def reserved_line_ids() -> set[str]:
    """Line ids the built-in items and the total hold; a further item of one of these ids is renamed."""
    return set(built_in_lines())


def reserved_titles() -> set[str]:
    """Sheet titles (lower case) that plan text may not take."""
    return base.reserved_titles(LINE_ITEMS)


def beside_total_ids() -> set[str]:
    """Line ids reported beside the total development cost, never added into it."""
    return {line.id for li in LINE_ITEMS for line in li.known_lines if not line.in_total}


def gpu_hours_bought(view: Any) -> list[GpuHours]:
    """The GPU-hours every line item buys under `view`'s market (a `MarketView`'s `buying`)."""
    return [hours for li in LINE_ITEMS if li.gpu_hours is not None for hours in li.gpu_hours(view)]


def lines(plan: Any) -> list[Line]:
    """Every line this plan reports except the total, in report order: those in the total, then those beside."""
    return base.report_lines(LINE_ITEMS, plan)


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

