"""What `fit --solve` moves: one workload's input (and what follows it), and setting it in a plan.

| `--solve` | the input | needs |
| --- | --- | --- |
| `tokens` | `flops.tokens` | hours from `flops` |
| `params` | `flops.params`, and `flops.tokens` = tokens per parameter x params (1) | hours from `flops` |
| `gpus` | `cluster.gpus` | hours from `cluster` |
| `days` | `cluster.days` | hours from `cluster` |
| `runs` | `runs` | |

(1) and `checkpoints.params` where it equals `flops.params`: the saves are of the same model.

With `--solve params` the tokens follow a compute-optimal rule: 20 tokens per parameter by default
(Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models" (Chinchilla), arXiv:2203.15556,
read 2026-12-02: about 20 tokens per parameter at the compute-optimal frontier); `--tokens-per-param`
overrides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..errors import UsageError
from ..plan.inputs import InputCell, input_cells
from ..plan.model import Plan
from ..plan.numbers import Bounds, Num

SOLVES = ("tokens", "params", "gpus", "days", "runs")
TOKENS_PER_PARAM = 20.0  # Chinchilla, arXiv:2203.15556 (see the module docstring)


@dataclass(frozen=True)
class Target:
    """The input `--solve` moves on one workload, and the inputs that follow it (x -> their values)."""

    solve: str
    workload: str                 # its id
    index: int                    # its position in `workloads`
    cell: InputCell               # the solved input: key path, defined name, bounds
    follow: tuple[tuple[InputCell, float], ...] = ()   # inputs set to factor x the solved value

    @property
    def bounds(self) -> Bounds:
        return self.cell.bounds

    @property
    def current(self) -> float:
        return self.cell.num.base

    def values(self, x: float) -> dict[tuple, Num]:
        """The plan inputs (key path -> value) with the solved input at `x`; a range keeps its ends where it can."""
        out = {self.cell.path: self.cell.num.with_base(x)}
        for cell, factor in self.follow:
            out[cell.path] = cell.num.with_base(factor * x)
        return out


def pick_workload(plan: Plan, workload: str | None) -> int:
    """The index of `--workload` (default: the plan's final run, or its only workload)."""
    ids = [w.id for w in plan.workloads]
    if workload is not None:
        if workload not in ids:
            raise UsageError(f"`--workload {workload}`: the plan has no such workload; it has {', '.join(ids)}")
        return ids.index(workload)
    finals = [i for i, w in enumerate(plan.workloads) if w.final_run]
    if len(finals) == 1:
        return finals[0]
    if len(ids) == 1:
        return 0
    why = "several final runs" if finals else "no final run (`final_run: true`)"
    raise UsageError(f"the plan has {why}: name the workload to solve with `--workload` ({', '.join(ids)})")


def _needs(workload: Any, index: int, way: str, solve: str) -> None:
    if workload.hours_given != way:
        raise UsageError(f"`--solve {solve}`: workloads[{index}] (`{workload.id}`) takes its hours from "
                         f"`{workload.hours_given}`, so no `{way}.{solve}` sets its cost; solve a workload "
                         f"whose hours come from `{way}` (`--workload`), or another input")


def target(plan: Plan, solve: str, workload: str | None = None,
           tokens_per_param: float = TOKENS_PER_PARAM) -> Target:
    """The input `--solve solve` moves on `--workload` (its defined name, bounds and current value)."""
    if solve not in SOLVES:
        raise UsageError(f"`--solve {solve}`: expected one of {', '.join(SOLVES)}")
    index = pick_workload(plan, workload)
    chosen = plan.workloads[index]
    cells = {cell.path: cell for cell in input_cells(plan)}
    at: tuple = ("workloads", index)
    follow: tuple[tuple[InputCell, float], ...] = ()
    path: tuple
    if solve in ("tokens", "params"):
        _needs(chosen, index, "flops", solve)
        path = (*at, "flops", solve)
        if solve == "params":
            if not (tokens_per_param > 0 and tokens_per_param < 1e6):
                raise UsageError(f"`--tokens-per-param {tokens_per_param:g}`: expected a number above 0 and "
                                 "below 1e6 (Chinchilla's is 20)")
            follow = ((cells[(*at, "flops", "tokens")], tokens_per_param),)
            checkpoints = chosen.checkpoints
            if checkpoints is not None and checkpoints.params is not None and \
                    checkpoints.params.base == chosen.flops.params.base:  # type: ignore[union-attr]
                follow += ((cells[(*at, "checkpoints", "params")], 1.0),)  # the same model's saves
    elif solve in ("gpus", "days"):
        _needs(chosen, index, "cluster", solve)
        path = (*at, "cluster", solve)
    else:
        path = (*at, "runs")
    return Target(solve, chosen.id, index, cells[path], follow)


def with_values(model: BaseModel, values: dict[tuple, Num]) -> Any:
    """A copy of a plan model with the inputs at `values`' key paths replaced (unvalidated: the caller
    validates what it writes)."""
    out: Any = model
    for path, value in values.items():
        out = _replace(out, path, value)
    return out


def _replace(node: Any, path: tuple, value: Num) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        copied = list(node)
        copied[head] = _replace(node[head], rest, value)
        return copied
    if isinstance(node, dict):
        return {**node, head: _replace(node[head], rest, value)}
    return node.model_copy(update={head: _replace(getattr(node, head), rest, value)})
