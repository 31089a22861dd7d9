"""Small inputs that asked for unbounded work (issue 16, item 6): time and peak memory of each, per source tree.

    python benchmarks/bench_bounds.py [--tree /path/to/old/checkout ...] [--limit-gb 4] [--timeout 150]

Builds each hostile case once (with this tree's `tests/hostile.py`), then runs
the command a user would (`budgetbook check FILE`, or `show`/`generate` for a
plan) in a fresh interpreter per tree, with that tree first on PYTHONPATH, so
its peak RSS (VmHWM) is its own. Every child runs under an address-space
limit and a timeout, so an unbounded case cannot take the machine down: it
shows as "MemoryError" or "timeout" instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import hostile  # noqa: E402  (the crafters the tests use)

CHILD = textwrap.dedent("""
    import contextlib, io, json, resource, sys, time
    limit, args = int(sys.argv[1]), sys.argv[2:]
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from budgetbook.cli import main
    err = io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(args)
    except MemoryError:
        code = "MemoryError"
    seconds = time.perf_counter() - start
    # VmHWM, not getrusage: ru_maxrss survives exec, so it would report the benchmark's own peak
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024
    print(json.dumps({"seconds": seconds, "rss": rss, "code": code, "err": err.getvalue().strip()}))
""")


def measure(tree: Path, args: list[str], limit: int, timeout: float, cwd: Path) -> dict:
    # cwd elsewhere: `python -c` puts the working directory first on sys.path, ahead of PYTHONPATH
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        result = subprocess.run([sys.executable, "-c", CHILD, str(limit), *args], capture_output=True, text=True,
                                timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "rss": 0, "outcome": f"timeout (killed after {timeout:g} s)"}
    if result.returncode != 0 or not result.stdout.strip():
        tail = (result.stderr.strip().splitlines() or ["?"])[-1]
        return {"seconds": float("nan"), "rss": 0, "outcome": f"crashed: {tail[:70]}"}
    m = json.loads(result.stdout.strip().splitlines()[-1])
    first = m["err"].splitlines()[0] if m["err"] else ""
    detail = first.split(": ", 2)[-1] if first.startswith("Error: ") else first
    m["outcome"] = f"exit {m['code']}" + (f": {detail[:90]}" if detail else "")
    return m


def build_cases(tmp: Path, old_tree: Path | None) -> list[tuple[str, list[str]]]:
    from budgetbook.api import generate_workbook
    from budgetbook.planfile.loader import template_text

    book = generate_workbook("finetune-13b-lora", tmp / "book.xlsx")
    data = book.read_bytes()
    text = template_text("finetune-13b-lora")
    prices = "".join(f"      G{i}: 1.0\n" for i in range(20_000))
    plan = tmp / "prices.yaml"
    plan.write_text(text.replace("      H100_SXM: 3.00 ", prices + "      H100_SXM: 3.00 ", 1))
    cases = [("plan with 20,000 GPU prices: show", ["show", str(plan)]),
             ("  ... generate", ["generate", str(plan), "-o", str(tmp / "prices-out.xlsx"), "--force"])]
    if old_tree is not None:  # the current tree refuses the plan: the old one writes the workbook to check
        run_cli = "import sys; from budgetbook.cli import main; sys.exit(main(sys.argv[1:]))"
        subprocess.run([sys.executable, "-c", run_cli, "generate", str(plan), "-o", str(tmp / "prices.xlsx")],
                       env=dict(os.environ, PYTHONPATH=str(old_tree)), capture_output=True, check=False, cwd=tmp)
        if (tmp / "prices.xlsx").exists():
            cases.append(("  ... check of its workbook (made by the old tree)", ["check", str(tmp / "prices.xlsx")]))
    crafted = {
        "1,048,576 empty formatted rows": ("About", hostile.empty_rows_to_the_end),
        "1,048,576 empty rows, no attributes": ("About", lambda xml: hostile.empty_rows_to_the_end(xml, b"")),
        "one cell at XFD1048576": ("Checks", hostile.far_away_cell),
        "declared dimension A1:XFD1048576": ("Inputs", hostile.huge_dimension),
        "hyperlink over A1:XFD1048576": ("About", hostile.hyperlink_over_the_grid),
    }
    for i, (label, (sheet, edit)) in enumerate(crafted.items()):
        path = hostile.with_sheet_xml(tmp / f"crafted{i}.xlsx", data, sheet, edit)
        cases.append((f"{label} ({path.stat().st_size / 1e6:.1f} MB)", ["check", str(path)]))
    import openpyxl

    for i, formula in enumerate(("=SUM(Inputs!A:A)", "=COUNTBLANK(Inputs!A:A)")):
        wb = openpyxl.load_workbook(book)
        wb["Summary"]["H2"] = formula
        path = tmp / f"column{i}.xlsx"
        wb.save(path)
        cases.append((f"{formula} added", ["check", str(path)]))
    cases.append(("untouched workbook (baseline)", ["check", str(book)]))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path, default=[],
                        help="a source tree to measure (repeatable; this one is always measured last)")
    parser.add_argument("--limit-gb", type=float, default=4.0)
    parser.add_argument("--timeout", type=float, default=150.0)
    args = parser.parse_args()
    trees = [*args.tree, ROOT]
    with tempfile.TemporaryDirectory() as tmp:
        cases = build_cases(Path(tmp), args.tree[0] if args.tree else None)
        header = f"{'case':<58} {'tree':<14} {'seconds':>8} {'peak RSS':>9}  outcome"
        print(header)
        print("-" * len(header))
        for label, command in cases:
            for tree in trees:
                m = measure(tree, command, int(args.limit_gb * 2**30), args.timeout, Path(tmp))
                name = "this tree" if tree == ROOT else tree.name
                print(f"{label:<58} {name:<14} {m['seconds']:>8.2f} {m['rss'] / 2**20:>6.0f} MB  {m['outcome']}",
                      flush=True)


if __name__ == "__main__":
    main()
