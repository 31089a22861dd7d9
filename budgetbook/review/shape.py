"""`check --plan OTHER`: a baseline plan of another shape than the workbook's is a `structure` finding.

`--plan` gives the values the workbook's inputs are compared with; it cannot be
the workbook's plan when its markets, workloads or line items differ: the
inputs it lacks would go uncompared and `check` would say OK about a workbook
that is not a budget of that plan at all.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..lineitems.registry import lines
from ..plan.inputs import input_cells
from ..plan.model import Plan
from .findings import Finding

SHOWN = 12  # ids listed in one finding; the rest counted


def entities(plan: Plan) -> Iterator[tuple[str, str]]:
    """(kind, id) of every list entry with an id: markets, workloads, items..."""
    for field_name in type(plan).model_fields:
        value = getattr(plan, field_name)
        for entry in value if isinstance(value, list) else []:
            if isinstance(getattr(entry, "id", None), str):
                yield field_name.removesuffix("s"), entry.id


def _line_items(plan: Plan) -> list[str]:

    return [line.id for line in lines(plan)]


def _listed(ids: list[str]) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def shape_findings(book_plan: Plan, baseline: Plan, baseline_source: str) -> list[Finding]:
    """`structure` findings (errors) for each way `baseline` is shaped unlike the workbook's own plan."""
    findings = []
    ours, theirs = list(entities(book_plan)), list(entities(baseline))
    kinds = list(dict.fromkeys(kind for kind, _ in ours + theirs))
    pairs = [(kind, [i for k, i in ours if k == kind], [i for k, i in theirs if k == kind]) for kind in kinds]
    pairs.append(("line item", _line_items(book_plan), _line_items(baseline)))
    for kind, in_book, in_plan in pairs:
        only_book = [i for i in in_book if i not in in_plan]
        only_plan = [i for i in in_plan if i not in in_book]
        if only_book:
            findings.append(Finding("structure", f"the workbook has {kind} {_listed(only_book)} that the plan "
                                    f"{baseline_source} has not: it is not a workbook of that plan"))
        if only_plan:
            findings.append(Finding("structure", f"the plan {baseline_source} has {kind} {_listed(only_plan)} that "
                                    "the workbook has not: it is not a workbook of that plan"))
    if not findings:  # same ids, other inputs: another GPU, another number of roles, a section left out
        book_names = {c.name for c in input_cells(book_plan)}
        plan_names = {c.name for c in input_cells(baseline)}
        for where, names in (("the workbook", book_names - plan_names), (f"the plan {baseline_source}",
                                                                          plan_names - book_names)):
            if names:
                findings.append(Finding("structure", f"only {where} has the inputs {_listed(sorted(names))}: "
                                        "the plan is shaped unlike the workbook's"))
    return findings
