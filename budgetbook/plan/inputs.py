"""The plan's numeric inputs as a flat list: one workbook input cell each, with its defined name.

The workbook writes one row per `InputCell`; `check` and `extract` read them
back by name and put the values into the plan with `with_values`. The
names are stable for a plan: they come from ids, not positions, except people
roles (numbered, as roles have free-text titles).
"""

from __future__ import annotations

import copy
import dataclasses
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .model import Plan, Workload
from .numbers import Bounds, Num
from .per_plan import PerPlan
from .timing import DEFAULT_WORKLOAD_MONTHS, OFFSET_BOUNDS, month_labels, offset_of

TIMING = "Timing"  # starts in months after the plan's start, lengths in months
_SHORT = {"checkpoints": "ckpt", "gpu_prices": "price", "roles": "role"}


@dataclass(frozen=True)
class InputCell:
    name: str           # workbook-scoped defined name
    path: tuple         # key path in the plan data: ("workloads", 0, "mfu")
    label: str
    num: Num
    bounds: Bounds
    note: str = ""
    month_of: str | None = None   # a start the plan gave as a calendar month: the plan's start, to spell it back
    section: str = ""             # its block on the Inputs sheet, where not the one its key path says

    @property
    def key_path(self) -> str:
        out = ""
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        return out


def bounds_of(model: type[BaseModel], field: str) -> Bounds:
    # the bounds sit in an `Annotated`, possibly inside an Optional and a union (a start: month or offset)
    todo = [model.model_fields[field].annotation]
    while todo:
        candidate = todo.pop(0)
        for meta in getattr(candidate, "__metadata__", ()):
            if isinstance(meta, Bounds):
                return meta
        todo += typing.get_args(candidate)
    for meta in model.model_fields[field].metadata:
        if isinstance(meta, Bounds):
            return meta
    raise LookupError(f"{model.__name__}.{field} is not a number")


def walk(model: BaseModel, path: tuple, name: tuple, label: str) -> typing.Iterator[InputCell]:
    """The input cells of one plan model: its numbers, nested models and maps of numbers, in field order."""
    for field in type(model).model_fields:
        value = getattr(model, field)
        short = _SHORT.get(field, field)
        sub_name = name + ((short,) if short else ())
        if isinstance(value, Num):
            yield InputCell("_".join(sub_name), path + (field,), f"{label} {field.replace('_', ' ')}".strip(),
                            value, bounds_of(type(model), field))
        elif isinstance(value, BaseModel):
            yield from walk(value, path + (field,), sub_name, label)
        elif isinstance(value, dict):
            for key, entry in value.items():
                if isinstance(entry, Num):
                    kind = field.replace("_", " ").removesuffix("s").replace("gpu price", "price per GPU-hour,")
                    yield InputCell("_".join(sub_name + (key.lower(),)), path + (field, key),
                                    f"{label} {kind} {key}".strip(), entry, bounds_of(type(model), field))


def input_cells(plan: Plan) -> list[InputCell]:
    """Every input of a plan: markets, workloads, then each line item's section, in Inputs sheet order.

    Worked out once per plan object (`per_plan`: `check` asks 6-11 times, ~10 ms each on a 100-workload
    portfolio); each caller gets its own list.
    """
    return list(_KNOWN(plan))


def _input_cells(plan: Plan) -> list[InputCell]:
    cells: list[InputCell] = []
    for i, market in enumerate(plan.markets):
        cells += plan.MARKET_KINDS.input_cells(market, i, plan)  # a market's kind says its rows
    for i, workload in enumerate(plan.workloads):
        label = workload.label or workload.id
        found = timed(plan, list(walk(workload, ("workloads", i), ("wl", workload.id), label)), ("workloads", i),
                      f"wl_{workload.id}", label, workload.start,
                      None if workload.months is not None or workload.cluster is not None
                      else Num.of(DEFAULT_WORKLOAD_MONTHS))
        if workload.mfu_default is not None:  # the evidence's MFU: said where finance reads it
            found = [dataclasses.replace(c, note=workload.mfu_default.note) if c.path[2:] == ("mfu",) else c
                     for c in found]
        if workload.flops is not None and workload.peak_tflops is None:
            # the catalog's peak is shown as an input, so finance sees (and may edit) it
            found.insert(0, InputCell(f"wl_{workload.id}_peak_tflops", ("workloads", i, "peak_tflops"),
                                      f"{label} peak tflops", workload.peak,
                                      bounds_of(type(workload), "peak_tflops"),
                                      f"catalog: {workload.gpu}" + ("" if workload.precision == "bf16"
                                                                    else f", {workload.precision.upper()}")))
        cells += found
    for item in plan.LINE_ITEMS:
        if item.section is not None:
            cells += item.section.cells(plan)
    # the timing inputs come last, in a block of their own: the flags of the Cash flow sheet read them,
    # and the rows above keep the addresses they had before plans had a schedule
    timing = [cell for cell in cells if cell.section == TIMING]
    return [cell for cell in cells if cell.section != TIMING] + timing


_KNOWN: PerPlan[tuple[InputCell, ...]] = PerPlan(lambda plan: tuple(_input_cells(plan)))


def timed(plan: Plan, cells: list[InputCell], path: tuple, name: str, label: str, start: Any,
          default_months: Num | None) -> list[InputCell]:
    """`cells` of something with a start (and a length in months), its timing inputs always present.

    The workbook's timing flags read a start and a length from input cells, so a start the plan leaves
    out (the plan's start) or gives as a month (`2026-03`) is an input cell too, holding its offset in
    months; so is a workload's default length of one month.
    """
    offset = offset_of(plan.start, start)
    month = plan.start if isinstance(start, str) else None
    out = [cell for cell in cells if cell.path[len(path):] != ("start",)]
    out.append(InputCell(f"{name}_start", path + ("start",), f"{label} start", Num.of(0) if offset is None
                         else offset if isinstance(offset, Num) else Num.of(offset), OFFSET_BOUNDS,
                         f"{start} (months after the plan's start)" if month else "months after the plan's start",
                         month, TIMING))
    if default_months is not None:
        out.append(InputCell(f"{name}_months", path + ("months",), f"{label} months", default_months,
                             bounds_of(Workload, "months"), "default: one month", section=TIMING))
    # a workload's stated length goes with its start
    return [dataclasses.replace(c, section=TIMING) if c.path == path + ("months",) and path[0] == "workloads"
            else c for c in out]


def month_text(cell: InputCell, value: Num) -> Any:
    """How a changed input is written back: a start the plan gave as a month stays a month where it can."""
    if cell.month_of is not None and not value.ranged and float(value.base).is_integer():
        return month_labels(cell.month_of, int(value.base) + 1)[-1]
    return None


def with_values(data: dict, values: dict[tuple, Num]) -> dict:
    """A copy of plan data (as loaded from YAML) with the inputs at `values`' paths replaced."""
    data = copy.deepcopy(data)
    for path, value in values.items():
        node: Any = data
        for part in path[:-1]:
            node = node.setdefault(part, {}) if isinstance(node, dict) else node[part]
        node[path[-1]] = value.to_yaml()
    return data


def changed_values(plan: Plan, values: dict[tuple, Num]) -> dict[tuple, Num]:
    """The values that differ from the plan's: an unchanged one keeps the plan's own spelling (3.00, 13.0e9,
    defaults left out)."""
    original = {cell.path: cell.num for cell in input_cells(plan)}
    return {path: num for path, num in values.items()
            if (was := original.get(path)) is None
            or (was.base, was.low, was.high, was.ranged) != (num.base, num.low, num.high, num.ranged)}
