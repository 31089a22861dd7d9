"""Time `generate` (build + write) and `evaluate` (formulas) for every template.

    python benchmarks/bench_generate.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.workbook.build import workbook_layout
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook


def timed(fn, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main(repeats: int = 3) -> None:
    print(f"{'template':<20} {'formulas':>8} {'names':>6} {'generate s':>11} {'evaluate s':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for template in template_names():
            source, text = resolve(template)
            plan = plan_from_text(text, source)
            out = Path(tmp) / f"{template}.xlsx"
            layout = workbook_layout(plan)
            generate = timed(lambda: write_workbook(plan, text, out), repeats)
            evaluate = timed(lambda: evaluate_workbook(out), repeats)
            formulas = sum(1 for spec in layout if spec.formula)
            print(f"{template:<20} {formulas:>8} {len(layout):>6} {generate:>11.3f} {evaluate:>11.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
