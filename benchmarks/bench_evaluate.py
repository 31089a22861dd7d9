"""Evaluate time per template: the ExcelModel path beside `evaluate_fast` (one compile per formula shape).

    python benchmarks/bench_evaluate.py [--repeat N]

For each built-in template, in the same run: a fresh Python process that
imports budgetbook and evaluates the generated workbook's bytes (what `check`
pays, imports and first compilations included; best of N), and the warm
in-process time (second call onward, best of N). Also prints how many formula
cells and distinct shapes the workbook has, and whether the two paths agree.
"""

from __future__ import annotations

import argparse
import io
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, time
t = time.perf_counter()
from budgetbook.xlsx.evaluate import evaluate_with_model
from budgetbook.xlsx.fasteval import evaluate_fast
fn = {"model": evaluate_with_model, "fast": evaluate_fast}[sys.argv[1]]
data = open(sys.argv[2], "rb").read()
fn(data)
print(time.perf_counter() - t)
"""


def fresh(kind: str, path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True,
                             check=True, cwd=ROOT)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return min(times)


def warm(fn, data: bytes, repeat: int) -> float:
    fn(data)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(data)
        times.append(time.perf_counter() - t)
    return min(times)


def same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k, x in a.items():
        y = b[k]
        if isinstance(x, float) and isinstance(y, (int, float)) and not isinstance(y, bool):
            if not math.isclose(x, y, rel_tol=1e-12):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import datetime as dt

    from openpyxl import load_workbook

    from budgetbook.planfile.loader import plan_from_text, resolve, template_names
    from budgetbook.workbook.build import build_workbook
    from budgetbook.xlsx.cell_grid import CellGrid
    from budgetbook.xlsx.evaluate import evaluate_with_model
    from budgetbook.xlsx.fasteval import evaluate_fast
    from budgetbook.xlsx.shapes import shape_of

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for template in template_names():
            source, text = resolve(template)
            buffer = io.BytesIO()
            build_workbook(plan_from_text(text, source), text, dt.date(2026, 1, 1)).save(buffer)
            data = buffer.getvalue()
            path = Path(tmp) / f"{template}.xlsx"
            path.write_bytes(data)
            grid = CellGrid(load_workbook(io.BytesIO(data)))
            shapes = {shape_of(f, cell[0], grid)[0] for cell, f in grid.formulas.items()}
            rows.append((template, len(grid.formulas), len(grid.names), len(shapes),
                         fresh("model", path, args.repeat), fresh("fast", path, args.repeat),
                         warm(evaluate_with_model, data, args.repeat), warm(evaluate_fast, data, args.repeat),
                         same(evaluate_fast(data), evaluate_with_model(data))))
    head = ("template", "formulas", "names", "shapes", "model fresh s", "fast fresh s", "model warm s",
            "fast warm s", "equal")
    print(" | ".join(head))
    for r in rows:
        print(" | ".join([r[0], *map(str, r[1:4]), *(f"{x:.3f}" for x in r[4:8]), str(r[8])]))


if __name__ == "__main__":
    main()
