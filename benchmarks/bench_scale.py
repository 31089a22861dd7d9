"""How `show`, `generate` and `check` scale with a portfolio's size, beside two reference engines.

    python benchmarks/bench_scale.py [--sizes 10x2,60x5,150x5,300x6,400x6,500x6] [--repeat 3]
                                     [--model-up-to 7000] [--no-libreoffice] [--stages]

Each size is WORKLOADSxMARKETS of a `portfolio.py` plan (roles grow with it).
For each plan: the formula cells of its workbook, then the wall time and peak
memory (max RSS) of fresh processes, as a user runs them:

- `budgetbook show PLAN --format json`, `budgetbook generate PLAN -o BOOK`,
  `budgetbook check BOOK` (imports included);
- LibreOffice's forced recalculation of the same BOOK (`soffice --convert-to
  xlsx` with OOXMLRecalcMode 0, a private warmed-up profile) and plain
  `formulas.ExcelModel().loads(BOOK).finish().calculate()` (up to
  `--model-up-to` formula cells: it takes minutes beyond);

medians of `--repeat` interleaved runs (every tool once per round), then the
ratios check / LibreOffice and ExcelModel / check, and check's seconds per
1,000 formula cells. `--stages` adds check's stages in-process (open,
evaluate, reference, audit), to see which one grows.

Targets (issue 9): check at 15,000 cells at or under LibreOffice, >= 20x faster
than ExcelModel, peak < 300 MB; at 50,000 cells under 15 s; the per-1,000-cell
time flat.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

from portfolio import portfolio_plan  # noqa: E402

CLI = [sys.executable, "-c", "from budgetbook.cli import run; run()"]
MODEL = [sys.executable, "-c", "import sys, formulas; formulas.ExcelModel().loads(sys.argv[1]).finish().calculate()"]


def measure(cmd: list[str], timeout: float = 300) -> tuple[float, float] | None:
    """(wall seconds, peak RSS in MB) of one fresh process; None when it runs past `timeout` (it is killed)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)  # soffice.bin is a grandchild: the whole session goes
            os.wait4(proc.pid, 0)
            return None
        time.sleep(0.005)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[-3:])} exited {proc.returncode}: {proc.stderr.read().decode()[-400:]}")
    return wall, usage.ru_maxrss / 1024


def formula_cells(book: Path) -> int:
    import openpyxl

    wb = openpyxl.load_workbook(book)
    return sum(1 for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f")


def defined_names(book: Path) -> int:
    import openpyxl

    return len(openpyxl.load_workbook(book).defined_names)


def soffice_command(book: Path, out_dir: Path) -> list[str] | None:
    import libreoffice

    if not libreoffice.soffice_available():
        return None
    profile = libreoffice._profile_url(libreoffice._convert_profile())
    return [libreoffice.SOFFICE, "--headless", "--norestore", "--nologo", f"-env:UserInstallation={profile}",
            "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir), str(book)]


def check_stages(book: Path) -> dict[str, float]:
    from bench_check import stages

    return stages(book)


def parse_sizes(text: str) -> list[tuple[int, int]]:
    return [(int(w), int(m)) for w, m in (part.split("x") for part in text.split(","))]


def run_size(workloads: int, markets: int, tmp: Path, args) -> dict:
    plan = tmp / f"portfolio-{workloads}x{markets}.yaml"
    plan.write_text(yaml.safe_dump(portfolio_plan(workloads, markets, roles=max(4, workloads // 5)),
                                   sort_keys=False))
    book = tmp / f"portfolio-{workloads}x{markets}.xlsx"
    tools = {
        "show": CLI + ["show", str(plan), "--format", "json"],
        "generate": CLI + ["generate", str(plan), "-o", str(book), "--force"],
        "check": CLI + ["check", str(book)],
    }
    measure(tools["generate"])
    cells, names = formula_cells(book), defined_names(book)
    lo = None if args.no_libreoffice else soffice_command(book, tmp / "lo")
    if lo is not None:
        tools["libreoffice"] = lo
        measure(lo, args.timeout)  # warm the profile and the page cache: not part of any row
    if cells <= args.model_up_to:
        tools["excelmodel"] = MODEL + [str(book)]
    runs: dict[str, list[tuple[float, float] | None]] = {tool: [] for tool in tools}
    for _ in range(args.repeat):  # interleaved: a slow moment of the machine hits every tool alike
        for tool, cmd in list(tools.items()):
            got = measure(cmd, args.timeout)
            runs[tool].append(got)
            if got is None or tool == "excelmodel" and got[0] > 60:
                del tools[tool]  # hung, or once is enough at a minute
    row: dict = {"workloads": workloads, "markets": markets, "cells": cells, "names": names}
    for tool, samples in runs.items():
        done = [s for s in samples if s is not None]
        row[tool] = (statistics.median(s for s, _ in done), max(mb for _, mb in done)) if done else "timeout"
    if args.stages:
        row["stages"] = check_stages(book)
    return row


def _cell(value: tuple[float, float] | str | None) -> str:
    if value is None:
        return f"{'-':>14}"
    if isinstance(value, str):
        return f"{value:>14}"
    return f"{value[0]:7.2f} {value[1]:4.0f}MB"


def _ratio(a, b, suffix: str = "") -> str | None:
    return f"{a[0] / b[0]:.2f}{suffix}" if isinstance(a, tuple) and isinstance(b, tuple) else None


def print_table(rows: list[dict]) -> None:
    print(f"{'plan':>8} {'cells':>7} {'names':>7} | {'show s':>14} {'generate s':>14} {'check s':>14} | "
          f"{'LibreOffice s':>14} {'ExcelModel s':>14} | {'check/LO':>8} {'Model/check':>11} {'s/1k cells':>10}")
    print("-" * 141)
    for row in rows:
        check, lo, model = row["check"], row.get("libreoffice"), row.get("excelmodel")
        ratio_lo = f"{_ratio(check, lo) or '-':>8}"
        ratio_model = f"{_ratio(model, check, 'x') or '-':>11}"
        print(f"{row['workloads']:>4}x{row['markets']:<3} {row['cells']:7,} {row['names']:7,} | {_cell(row['show'])} "
              f"{_cell(row['generate'])} {_cell(check)} | {_cell(lo)} {_cell(model)} | {ratio_lo} {ratio_model} "
              f"{1000 * check[0] / row['cells']:10.3f}")
    if any("stages" in row for row in rows):
        print(f"\n{'cells':>7} | check in-process: " + " ".join(f"{k:>9}" for k in rows[0]["stages"]) + " | s/1k cells")
        for row in rows:
            st = row["stages"]
            print(f"{row['cells']:7,} | {'':18}" + " ".join(f"{v:9.2f}" for v in st.values())
                  + f" | {1000 * sum(st.values()) / row['cells']:.3f}")
    big, small = rows[-1], rows[0]
    if big["cells"] > small["cells"]:
        slope = (big["check"][0] - small["check"][0]) / (big["cells"] - small["cells"]) * 1000
        print(f"\ncheck slope between {small['cells']:,} and {big['cells']:,} cells: {slope:.3f} s per 1,000 "
              f"formula cells (fixed cost ~{small['check'][0] - slope * small['cells'] / 1000:.2f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10x2,60x5,150x5,300x6,400x6,500x6",
                        help="WORKLOADSxMARKETS, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--model-up-to", type=int, default=7000, help="run ExcelModel up to this many cells")
    parser.add_argument("--no-libreoffice", action="store_true")
    parser.add_argument("--stages", action="store_true", help="also time check's stages in-process")
    parser.add_argument("--timeout", type=float, default=180, help="seconds before a run counts as hung")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        rows = [run_size(w, m, Path(tmp), args) for w, m in parse_sizes(args.sizes)]
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
