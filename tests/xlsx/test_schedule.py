"""`schedule.batches` (an area's formula cells found once, a cell whose reads are placed placed at once)
gives the batches the plain walk gives: every cell's dependencies sorted, a depth-first post-order, then
each cell's level from that order."""

from __future__ import annotations

import sys
from pathlib import Path

import openpyxl
import pytest

from budgetbook.xlsx.cell_grid import CellGrid
from budgetbook.xlsx.schedule import batches
from budgetbook.xlsx.shapes import plan_formulas

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "review"))
from test_check_at_scale import portfolio_book  # noqa: E402


def plain_batches(grid: CellGrid, plans: dict) -> list:
    """The walk as fasteval had it before `schedule`: no memo, no shortcut."""
    def cells_in(target):
        sheet, r1, c1, r2, c2 = target if len(target) == 5 else (*target, *target[1:])  # a cell: its key
        return [k for k in grid.formulas if k[0] == sheet and r1 <= k[1] <= r2 and c1 <= k[2] <= c2]

    deps = {cell: sorted({d for t in plan.targets for d in cells_in(t)}) for cell, plan in plans.items()}
    order, state, on_cycle = [], {}, set()
    for root in deps:
        if root in state:
            continue
        stack, state[root] = [(root, iter(deps[root]))], 1
        while stack:
            node, pending = stack[-1]
            for nxt in pending:
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(deps[nxt])))
                    break
                if state[nxt] == 1:
                    idx = next(i for i, (n, _) in enumerate(stack) if n == nxt)
                    on_cycle.update(n for n, _ in stack[idx:])
            else:
                stack.pop()
                state[node] = 2
                order.append(node)
    level, by_level = {}, {}
    for cell in order:
        if cell in on_cycle:
            continue
        level[cell] = depth = 1 + max((level.get(d, 0) for d in deps[cell]), default=0)
        shape = plans[cell].shape
        by_level.setdefault(depth, {}).setdefault(id(shape) if shape.batchable else cell, []).append(cell)
    return [batch for depth in sorted(by_level) for batch in by_level[depth].values()]


def test_a_portfolio_books_batches_are_the_plain_walks(tmp_path):
    grid = CellGrid(openpyxl.load_workbook(portfolio_book(tmp_path, 6, 3)))
    plans = plan_formulas(grid)
    assert batches(grid, plans) == plain_batches(grid, plans)


@pytest.mark.parametrize("formulas", [
    {"A1": "=B1", "B1": "=A1", "C1": "=A1+1", "D1": "=C1*2"},                     # a pair, and its readers
    {"A1": "=B1+C1", "B1": "=A1", "C1": "=B1", "D1": "=SUM(A1:C1)", "E1": "=D1"},  # a cross edge into a cycle
    {"A1": "=A1", "B1": "=A1", "C1": "=E1", "D1": "=C1", "E1": "=2"},              # a later cell read first
    {"A2": "=SUM(A3:A9)", "A3": "=A4+1", "A4": "=A5+1", "A5": "=A6", "A6": "=A3", "A9": "=1", "B1": "=A2"},
])
def test_cycles_and_forward_reads_batch_as_the_plain_walk(formulas):
    wb = openpyxl.Workbook()
    for ref, formula in formulas.items():
        wb.active[ref] = formula
    grid = CellGrid(wb)
    plans = plan_formulas(grid)
    assert batches(grid, plans) == plain_batches(grid, plans)
