"""What a line item is: the lines it reports, its plan section, its reference rule, its sheet.

Each line item module ends with one `LineItem` (its `ITEM`); `registry.py`
lists them, and everything that needs to know which items exist (reserved
ids, labels, sheet titles, Summary/Procurement/Checks rows, the Inputs
sections, the plan's schema) iterates the registry instead of naming them.
An item that must know the others (contingency: the lines before it; further
items: the ids and titles taken) reads them from the plan's model, whose
`LINE_ITEMS` the full model sets, with the helpers at the end of this file.

The reference rule (`reference`) and the sheet builder (`build`) are two
independent implementations of the same accounting, side by side in one
module; the random-plan agreement test keeps them honest.

An item that buys GPU-hours says so, both ways (`gpu_hours`, `gpu_hours_cells`):
per workload and priced market, the hours it buys and when. A commitment's
block and the Variance sheet's planned hours read those declarations, never a
list of items, so a new item's hours fill a reserved block instead of being
paid at the committed price beside a block that shows them idle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..plan.inputs import InputCell
from ..plan.model import Plan
from ..sheetkit.cash_flow import CashFlow
from ..sheetkit.embed import SHEET as EMBED_SHEET
from ..sheetkit.grid import Blueprint
from ..sheetkit.names import Inputs
from .gpu_hours import GpuHours, GpuHoursCells
from .scenario import MarketView


@dataclass(frozen=True)
class Line:
    """One figure per market: `id` is `show`'s `item` and its defined name's prefix (`compute_<market>`)."""

    id: str
    label: str
    in_total: bool = True   # False: beside the total (final-run compute, serving), never added into it
    # how a bill can know it: "line" (a bill carries it as its own line), "gpu" (a bill carries it only inside the
    # market's GPU spend: the hours paid, whatever they were used for) or "plan" (no bill carries it: contingency);
    # the Variance sheet compares bills with the plan at that level (`ledger.sheets.variance_blocks`)
    billed: str = "line"


@dataclass(frozen=True)
class Section:
    """A top-level plan key a line item owns (`people:`), with what the rest of the tool needs of it."""

    key: str
    annotation: Any                       # the pydantic type of the key
    default: Any                          # its default (a value, or a pydantic `Field(default_factory=...)`)
    title: str                            # heading of its block on the Inputs sheet
    input_prefix: str                     # defined-name prefix of its input cells (`srv_`)
    cells: Callable[[Plan], list[InputCell]]            # its input cells, in Inputs sheet order
    validate: Callable[[Plan], None] | None = None      # cross-references; raises ValueError("`key.path`: ...")
    gpus: Callable[[Plan], set[str]] | None = None      # GPUs every priced market must price for it
    examples: tuple[Any, ...] = ()                      # valid values of the key (docs, random test plans)
    warnings: Callable[[Plan], list[tuple[str, str]]] | None = None  # (key path, line): sanity warnings

    def of(self, plan: Plan) -> Any:
        """This section of a plan (or of a plan seen in one scenario)."""
        return getattr(plan, self.key)


@dataclass(frozen=True)
class LineItem:
    id: str
    doc: str                                            # the rule in words (README, About sheet)
    known_lines: tuple[Line, ...]                       # every line it may report, for reserved ids
    lines: Callable[[Plan], list[Line]]                 # the lines this plan has
    reference: Callable[[MarketView], dict[str, float]]  # line id -> value, one market, one scenario
    build: Callable[[Blueprint, Plan, Inputs], None]    # writes its sheet (or rows on another item's sheet)
    sheet_titles: Callable[[Plan, set[str]], list[str]]  # titles of the sheets `build` adds, in tab order
    fixed_title: str | None = None                      # a title no plan text may take
    name_prefix: str = ""                               # defined-name prefix of its calculation cells
    section: Section | None = None
    workload_detail: Callable[[MarketView, Any], dict[str, Any]] | None = None  # `Breakdown.details` columns
    # over time (lines in the total only): line id -> one value per month, and its rows on the Cash flow sheet
    monthly: Callable[[MarketView], dict[str, list[float]]] | None = None
    cash_flow: Callable[[CashFlow, Plan, Inputs], None] | None = None
    timing: Callable[[CashFlow, Plan, Inputs], None] | None = None     # its own timing flags on the Cash flow
    # the GPU-hours it buys (commitments fill their blocks with them): the reference's, then the workbook's
    gpu_hours: Callable[[MarketView], list[GpuHours]] | None = None
    gpu_hours_cells: Callable[[Plan, Any], list[GpuHoursCells]] | None = None  # plan, the column's market


def one_sheet(title: str) -> Callable[[Plan, set[str]], list[str]]:
    """`sheet_titles` of an item that always writes one sheet with a fixed title."""
    return lambda plan, taken: [title]


def no_sheet(plan: Plan, taken: set[str]) -> list[str]:
    """`sheet_titles` of an item that writes rows on another item's sheet."""
    return []


def rule(module_doc: str | None) -> str:
    """The paragraph of a line item module's docstring that starts "Rule:", as one line of text."""
    for paragraph in (module_doc or "").split("\n\n"):
        if paragraph.strip().startswith("Rule:"):
            return " ".join(paragraph.split()).removeprefix("Rule: ")
    raise ValueError("a line item module's docstring states its rule in a paragraph starting `Rule:`")


TOTAL = Line("total", "Total development cost")
GPU_SPEND = Line("gpu_spend", "GPU spend")  # the Variance sheet's sum of a market's `billed="gpu"` lines
FRAME_TITLES = ("About", "Inputs", "Summary", "Procurement", "Options", "Cash flow", "Sensitivity", "Checks",
                EMBED_SHEET)


def report_lines(items: Sequence[LineItem], plan: Any) -> list[Line]:
    """Every line `items` report for this plan except the total: those in the total, then those beside."""
    found = [line for li in items for line in li.lines(plan)]
    return [line for line in found if line.in_total] + [line for line in found if not line.in_total]


def built_in_lines(items: Sequence[LineItem]) -> dict[str, str]:
    """Line id -> whose it is, for every line `items` may report and the total: a plan's further
    `items` of one of these ids take `<id>_item` as their line (`items.line_ids`)."""
    return {TOTAL.id: f"`{TOTAL.label}`", GPU_SPEND.id: f"`{GPU_SPEND.label}` (Variance)"} | {
        line.id: f"`{line.label}`, line item {li.id!r}" for li in items for line in li.known_lines}


def reserved_titles(items: Sequence[LineItem]) -> set[str]:
    """Sheet titles (lower case) that plan text may not take."""
    return {t.lower() for t in FRAME_TITLES} | {li.fixed_title.lower() for li in items if li.fixed_title}
