"""How long `budgetbook check` takes per template, beside LibreOffice's recalculation of the same file.

    python benchmarks/bench_check.py [--repeat N] [--no-libreoffice]

For each built-in template: generate the workbook, then time

- `check` in-process (best of N), split into its stages: open (safety scan,
  openpyxl load, embedded plan, names), evaluate (the `formulas` engine),
  reference (read inputs back, reference model) and audit (every formula
  against the generated one, plus the figure comparison);
- `budgetbook check` as a fresh process (what a user waits for: imports included);
- the guard `generate` runs before replacing a workbook (`edits_since_generated`);
- LibreOffice's headless recalculation (`soffice --convert-to xlsx`, always
  recalculate) of the same file in the same run: the reference engine.

Target: check under 3 s per template.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from timing import best  # noqa: E402

TARGET_S = 3.0



def stages(path: Path) -> dict[str, float]:
    """check_workbook's stages, timed one by one (the same calls it makes)."""
    from budgetbook.plan.inputs import input_cells, with_values
    from budgetbook.planfile.loader import plan_from_data
    from budgetbook.reference import compute_breakdown
    from budgetbook.review.audit import audit_formulas
    from budgetbook.review.compare import compare_figures
    from budgetbook.review.readback import open_book, read_inputs

    out = {}
    t = time.perf_counter()
    book = open_book(path)
    out["open"] = time.perf_counter() - t
    t = time.perf_counter()
    evaluated = book.evaluate()  # the workbook check loaded, not a second load
    out["evaluate"] = time.perf_counter() - t
    t = time.perf_counter()
    cells = input_cells(book.plan)
    values, _ = read_inputs(book, cells, evaluated, {c.name: c.num for c in cells})
    reference = compute_breakdown(plan_from_data(with_values(book.plan_tree, values), "bench"))
    out["reference"] = time.perf_counter() - t
    t = time.perf_counter()
    audit_formulas(book, evaluated)
    compare_figures(book, evaluated, reference, book.plan, 1e-9, 0.005)
    out["audit"] = time.perf_counter() - t
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N for the in-process timings")
    parser.add_argument("--no-libreoffice", action="store_true", help="skip LibreOffice's recalculation")
    args = parser.parse_args()

    from budgetbook.planfile.loader import plan_from_text, resolve, template_names
    from budgetbook.review.check import check_workbook
    from budgetbook.review.guard import edits_since_generated
    from budgetbook.workbook.write import write_workbook

    lo = None
    if not args.no_libreoffice:
        import libreoffice

        lo = libreoffice if libreoffice.soffice_available() else None

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        tmp = Path(tmp)
        (tmp / "in").mkdir()
        books = {}
        for template in template_names():
            source, text = resolve(template)
            books[template] = write_workbook(plan_from_text(text, source), text, tmp / "in" / f"{template}.xlsx")
        if lo is not None:  # first start of a fresh LibreOffice profile is slow: not part of any row
            lo.recalculate(books[template_names()[0]], tmp / "warm")
        for template, book in books.items():
            size = book.stat().st_size
            report = check_workbook(book)
            assert report.ok and not report.findings, (template, [f.as_dict() for f in report.findings])
            check_s = best(lambda: check_workbook(book), args.repeat)
            split = stages(book)
            guard_s = best(lambda: edits_since_generated(book), args.repeat)
            t = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", "from budgetbook.cli import run; run()", "check",
                                   str(book)], capture_output=True, text=True)
            cli_s = time.perf_counter() - t
            assert done.returncode == 0, done.stderr
            lo_s = None
            if lo is not None:
                t = time.perf_counter()
                lo.recalculate(book, tmp / "lo" / template)
                lo_s = time.perf_counter() - t
            rows.append((template, size, len(report.figures), check_s, split, cli_s, guard_s, lo_s))

    header = (f"{'template':<18} {'xlsx KB':>7} {'figs':>4} {'check s':>7} {'open':>6} {'eval':>6} {'ref':>6} "
              f"{'audit':>6} {'CLI s':>6} {'guard s':>7} {'LO recalc s':>11}  target")
    print(header)
    print("-" * len(header))
    worst = 0.0
    for template, size, nfig, check_s, split, cli_s, guard_s, lo_s in rows:
        worst = max(worst, check_s, cli_s)
        lo_text = f"{lo_s:11.2f}" if lo_s is not None else f"{'n/a':>11}"
        verdict = "ok" if max(check_s, cli_s) < TARGET_S else "OVER"
        print(f"{template:<18} {size / 1024:7.1f} {nfig:4d} {check_s:7.2f} {split['open']:6.2f} "
              f"{split['evaluate']:6.2f} {split['reference']:6.2f} {split['audit']:6.2f} {cli_s:6.2f} "
              f"{guard_s:7.2f} {lo_text}  {verdict} (< {TARGET_S:g} s)")
    print(f"\ncheck s: in-process check_workbook, best of {args.repeat}; open/eval/ref/audit: its stages; "
          "CLI s: `budgetbook check` as a fresh process;\nguard s: generate's edited-workbook test; "
          "LO recalc s: soffice --convert-to xlsx with recalculation, same file, same run.")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
