"""The order `fasteval` computes formula cells in: what each reads, its level, and the batches of a level.

A cell's level is one more than the highest level of the formula cells it reads, so no cell reads a
cell of its own level or a later one: a level's cells can be computed in any grouping, and each
elementwise shape's cells of one level go in one batch. The walk is iterative (no depth limit) and
leaves out every cell on a cycle; a cell that reads one then finds it without a value, as ExcelModel
leaves it (see `fasteval`'s module docstring).
"""

from __future__ import annotations

from typing import Any

from .cell_grid import Area, CellGrid, CellKey
from .shapes import FormulaPlan

_VISITING, _UNPLACED = -1, 0  # a cell's mark in `_levels` while on the stack, and left on a cycle


def batches(grid: CellGrid, plans: dict[CellKey, FormulaPlan]) -> list[list[CellKey]]:
    """The cells to compute, in batches: one batch per batchable shape per level, else one cell each."""
    by_level = _levels(dependencies(grid, plans), plans)
    return [batch for depth in sorted(by_level) for batch in by_level[depth].values()]


def dependencies(grid: CellGrid, plans: dict[CellKey, FormulaPlan]) -> dict[CellKey, tuple[CellKey, ...]]:
    """The formula cells each formula cell reads, in order; an area's formula cells found once an area (a
    cell read is its key already: `shapes.FormulaPlan`)."""
    formulas = grid.formulas
    inside: dict[Area, list[CellKey]] = {}
    deps = {}
    for cell, plan in plans.items():
        found: list[CellKey] = []
        for target in plan.targets:
            if len(target) == 3:
                if target in formulas:
                    found.append(target)
                continue
            cells = inside.get(target)
            if cells is None:
                cells = inside[target] = _formula_cells_in(grid, target)
            found += cells
        deps[cell] = tuple(sorted(set(found))) if len(found) > 1 else tuple(found)
    return deps


def _formula_cells_in(grid: CellGrid, target: Area) -> list[CellKey]:
    sheet, r1, c1, r2, c2 = target
    if (r1, c1) == (r2, c2):
        return [(sheet, r1, c1)] if (sheet, r1, c1) in grid.formulas else []
    # walk whichever is smaller: the area's cells or all formula cells
    if (r2 - r1 + 1) * (c2 - c1 + 1) <= len(grid.formulas):
        return [(sheet, r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)
                if (sheet, r, c) in grid.formulas]
    return [k for k in grid.formulas if k[0] == sheet and r1 <= k[1] <= r2 and c1 <= k[2] <= c2]


Levels = dict[int, dict[Any, list[CellKey]]]  # {level: {id(shape), or the cell where it is not batchable: cells}}


def _levels(deps: dict[CellKey, tuple[CellKey, ...]], plans: dict[CellKey, FormulaPlan]) -> Levels:
    """{level: {batch key: cells}} of every cell not on a cycle, each placed after the cells it reads.

    Depth first and iterative; a cell on the stack when a back edge reaches it is on a cycle, and so is
    every cell above it there. A cell is placed as it leaves the stack, when its level is known; one
    whose every read cell is placed already (most: a sheet's rows read the rows above) is placed at once,
    as the walk would place it.
    """
    by_level: Levels = {}
    batchable: dict[int, bool] = {}  # id(shape) -> shape.batchable, asked once a shape
    # a cell met: its level once placed (1 and up), `_VISITING` on the stack, `_UNPLACED` left on a cycle
    # (one map, not a level map and a state map: ~10 MB less at 260,000 formula cells, the peak of `check`)
    level: dict[CellKey, int] = {}
    on_cycle: set[CellKey] = set()

    def place(cell: CellKey, depth: int) -> None:
        level[cell] = depth
        shape = plans[cell].shape
        can = batchable.get(id(shape))
        if can is None:
            can = batchable[id(shape)] = shape.batchable
        group = by_level.get(depth)
        if group is None:
            group = by_level[depth] = {}
        key = id(shape) if can else cell
        cells = group.get(key)
        if cells is None:
            group[key] = [cell]
        else:
            cells.append(cell)

    for root, children in deps.items():
        if root in level:
            continue
        depth = 0
        for d in children:
            got = level.get(d)
            if got is None:
                break
            if got > depth:
                depth = got
        else:  # every cell it reads met already (none on the stack: the walk before this one is over)
            place(root, depth + 1)
            continue
        stack = [(root, iter(children))]
        level[root] = _VISITING
        while stack:
            node, pending = stack[-1]
            for nxt in pending:
                seen = level.get(nxt)
                if seen is None:
                    level[nxt] = _VISITING
                    stack.append((nxt, iter(deps[nxt])))
                    break
                if seen == _VISITING:  # back edge: every cell on the stack from nxt on is on a cycle
                    idx = next(i for i, (n, _) in enumerate(stack) if n == nxt)
                    on_cycle.update(n for n, _ in stack[idx:])
            else:
                stack.pop()
                if node in on_cycle:
                    level[node] = _UNPLACED
                    continue
                depth = 0
                for d in deps[node]:
                    got = level[d]  # met, and off the stack: a cell on it would put this one on the cycle
                    if got > depth:
                        depth = got
                place(node, depth + 1)
    return by_level
