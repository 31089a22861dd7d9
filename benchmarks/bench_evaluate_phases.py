"""CPU seconds of each phase of `check`'s evaluate stage on one workbook, the least of N rounds.

    python benchmarks/bench_evaluate_phases.py BOOK.xlsx [--repeat N]

The workbook is opened once (`open_book`, as `check` does); then, each round, the phases
`evaluate_fast` runs, one by one and with the same calls: grid (`CellGrid`: cells and names
read), plan (`plan_formulas`: a shape and areas per formula cell), schedule (`schedule.batches`:
dependencies, levels, batches), compute (every batch) and names (each name's value), and the
whole stage as `check` calls it (`OpenedWorkbook.evaluate`); the phases with the garbage collector
held off, as `evaluate_fast` holds it. `time.process_time`, so a shared machine's load disturbs it
less than wall time.
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from budgetbook.review.readback import open_book
    from budgetbook.xlsx import fasteval
    from budgetbook.xlsx.cell_grid import CellGrid
    from budgetbook.xlsx.collector import paused
    from budgetbook.xlsx.schedule import batches
    from budgetbook.xlsx.shapes import plan_formulas

    book = open_book(args.book)
    book.evaluate()  # imports and first compilations: not part of any round
    anchored = {name: where for name, where in book.located.items() if name not in book.names}
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        took = {}
        gc.collect()  # what the round before left: not this round's to collect
        with paused():  # as evaluate_fast runs its phases
            t = time.process_time()
            grid = CellGrid(book.wb)
            took["grid"] = time.process_time() - t
            t = time.process_time()
            plans = plan_formulas(grid)
            took["plan"] = time.process_time() - t
            t = time.process_time()
            order = batches(grid, plans)
            took["schedule"] = time.process_time() - t
            t = time.process_time()
            evaluator = fasteval._Evaluator(grid)
            for batch in order:
                evaluator.compute(batch, plans)
            took["compute"] = time.process_time() - t
            real = fasteval.CellGrid, fasteval._evaluated
            fasteval.CellGrid, fasteval._evaluated = (lambda wb: grid), (lambda g: evaluator)  # the names alone
            try:
                t = time.process_time()
                fasteval.evaluate_fast(book.wb, anchored)
                took["names"] = time.process_time() - t
            finally:
                fasteval.CellGrid, fasteval._evaluated = real
        gc.collect()
        t = time.process_time()
        book.evaluate()
        took["stage"] = time.process_time() - t
        for phase, seconds in took.items():
            best[phase] = min(best.get(phase, seconds), seconds)
    print(f"{args.book.name}: {len(grid.formulas):,} formula cells, {len(order):,} batches, "
          f"least of {args.repeat}, CPU s")
    print("  ".join(f"{phase} {seconds:.3f}" for phase, seconds in best.items()))


if __name__ == "__main__":
    main()
