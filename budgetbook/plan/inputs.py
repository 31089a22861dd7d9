"""The plan's numeric inputs as a flat list: one workbook input cell each, with its defined name.

The workbook writes one row per `InputCell`; `check` and `extract` read them
back by name and put the values into the plan with `with_values`. The
names are stable for a plan: they come from ids, not positions, except people
roles (numbered, as roles have free-text titles).
"""

from __future__ import annotations

import copy
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

if typing.TYPE_CHECKING:
    from .model import Plan

from .numbers import Bounds, Num

_SHORT = {"checkpoints": "ckpt", "gpu_prices": "price", "hybrid": "", "roles": "role"}


@dataclass(frozen=True)
class InputCell:
    name: str           # workbook-scoped defined name
    path: tuple         # key path in the plan data: ("workloads", 0, "mfu")
    label: str
    num: Num
    bounds: Bounds
    note: str = ""

    @property
    def key_path(self) -> str:
        out = ""
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        return out


def bounds_of(model: type[BaseModel], field: str) -> Bounds:
    annotation = model.model_fields[field].annotation
    candidates = [annotation, *typing.get_args(annotation)]
    for candidate in candidates:
        for meta in getattr(candidate, "__metadata__", ()):
            if isinstance(meta, Bounds):
                return meta
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
    """Every input of a plan: markets, workloads, then each line item's section, in Inputs sheet order."""
    from ..lineitems.registry import LINE_ITEMS

    cells: list[InputCell] = []
    for i, market in enumerate(plan.markets):
        cells += walk(market, ("markets", i), ("mkt", market.id), market.label or market.id)
    for i, workload in enumerate(plan.workloads):
        label = workload.label or workload.id
        found = list(walk(workload, ("workloads", i), ("wl", workload.id), label))
        if workload.flops is not None and workload.peak_tflops is None:
            # the catalog's peak is shown as an input, so finance sees (and may edit) it
            found.insert(0, InputCell(f"wl_{workload.id}_peak_tflops", ("workloads", i, "peak_tflops"),
                                      f"{label} peak tflops", workload.peak,
                                      bounds_of(type(workload), "peak_tflops"), f"catalog: {workload.gpu}"))
        cells += found
    for item in LINE_ITEMS:
        if item.section is not None:
            cells += item.section.cells(plan)
    return cells


def with_values(data: dict, values: dict[tuple, Num]) -> dict:
    """A copy of plan data (as loaded from YAML) with the inputs at `values`' paths replaced."""
    data = copy.deepcopy(data)
    for path, value in values.items():
        node: Any = data
        for part in path[:-1]:
            node = node.setdefault(part, {}) if isinstance(node, dict) else node[part]
        node[path[-1]] = value.to_yaml()
    return data
