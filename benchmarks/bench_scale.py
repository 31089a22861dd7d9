"""How every command scales with a portfolio's size, beside the spreadsheet programs a team already has.

    python benchmarks/bench_scale.py [--sizes 10x2,40x4,100x5,140x5] [--repeat 3] [--model-up-to 7000]
                                     [--no-libreoffice] [--no-gnumeric] [--lo-figures] [--stages]

Each size is WORKLOADSxMARKETS of a `portfolio.py` plan (roles grow with it).
For each plan: the formula cells and defined names of its workbook, then the
wall time and peak memory (max RSS) of fresh processes, as a user runs them:

- budgetbook: `show PLAN --format json`, `generate PLAN -o BOOK`, `check BOOK`,
  `extract BOOK`, `diff PLAN BOOK` (the plan against its own book) and
  `show BOOK` (imports included);
- LibreOffice's forced recalculation of the same BOOK (`soffice --convert-to
  xlsx` with OOXMLRecalcMode 0, a private warmed-up profile), Gnumeric's
  (`ssconvert --recalc -S BOOK out-%s.csv`: read, recalculate every formula,
  write every sheet) and plain `formulas.ExcelModel().loads(BOOK).finish().calculate()`
  (up to `--model-up-to` formula cells: it takes minutes beyond);

medians of `--repeat` interleaved runs (every tool once per round; CPU seconds too, which
a machine others share disturbs far less than wall time), then the
ratios check / LibreOffice, check / Gnumeric and ExcelModel / check, and check's
seconds per 1,000 formula cells. A run past `--timeout` is killed and shown as
`timeout` (LibreOffice 7.4 never opened a book of more than 65,535 names: 140x5
did, before `sheetkit/anchors.py`). `--lo-figures` also reads LibreOffice's
recalculated figures and counts those equal to the reference model (slow past
100,000 cells: openpyxl reads LibreOffice's file). `--stages` adds check's
stages in-process (open, evaluate, reference, audit), to see which one grows.

Targets (issue 28): check at 16,000 and 45,000 cells no slower than Gnumeric,
peak < 200 MB at 45,000, per-1,000-cell time at 45,000 <= 1.2x that at 4,000;
generate of 16,000 cells < 1 s; extract and diff of 45,000 < 2 s; show BOOK < 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

from portfolio import portfolio_plan  # noqa: E402

CLI = [sys.executable, "-c", "from budgetbook.cli import run; run()"]
MODEL = [sys.executable, "-c", "import sys, formulas; formulas.ExcelModel().loads(sys.argv[1]).finish().calculate()"]


def measure(cmd: list[str], timeout: float = 300) -> tuple[float, float, float] | None:
    """(wall seconds, peak RSS in MB, CPU seconds user + system) of one fresh process; None when it runs past
    `timeout` (it is killed). CPU seconds hold better than wall time on a machine others share."""
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
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def formula_cells(book: Path) -> int:
    """Formula cells of a budgetbook workbook (openpyxl writes no shared formulas): its `<f>` elements."""
    count = 0
    with zipfile.ZipFile(book) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/sheet"):
                with z.open(name) as part:  # a part at a time, in pieces: this process stays small
                    tail = b""
                    while chunk := part.read(1 << 20):
                        text = tail + chunk
                        count += text.count(b"<f>") + text.count(b"<f ")
                        tail = text[-2:] if not text.endswith((b"<f>", b"<f ")) else b""
    return count


def defined_names(book: Path) -> int:
    with zipfile.ZipFile(book) as z:
        return z.read("xl/workbook.xml").count(b"<definedName ")


def gnumeric_command(book: Path, out_dir: Path) -> list[str] | None:
    ssconvert = shutil.which("ssconvert")
    if ssconvert is None:
        return None
    out_dir.mkdir(exist_ok=True)
    return [ssconvert, "--recalc", "-S", str(book), str(out_dir / "out-%s.csv")]


def lo_figures(book: Path, plan: Path, out_dir: Path) -> str:
    """How many figures LibreOffice's recalculation of `book` (already in `out_dir`) has equal to the reference."""
    import math

    from libreoffice import cell_values

    from budgetbook.planfile.loader import load_plan
    from budgetbook.reference import compute_breakdown

    saved = out_dir / book.name
    if not saved.is_file():
        return "-"
    values = cell_values(saved)
    figures = compute_breakdown(load_plan(plan)).figures
    equal = sum(1 for f in figures if isinstance(values.get(f.name), (int, float))
                and math.isclose(values[f.name], f.value, rel_tol=1e-9, abs_tol=1e-6))
    return f"{equal}/{len(figures)}"


def soffice_command(book: Path, out_dir: Path) -> list[str] | None:
    import libreoffice

    if not libreoffice.soffice_available():
        return None
    profile = libreoffice._profile_url(libreoffice._convert_profile())
    return [libreoffice.SOFFICE, "--headless", "--norestore", "--nologo", f"-env:UserInstallation={profile}",
            "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir), str(book)]


def in_child(*args: str) -> object:
    """`--child ARGS` of this script in a fresh process, its JSON answer. The measuring process stays
    small: Linux carries a parent's peak RSS into a forked child's `ru_maxrss`, so whatever this
    process loads (a book read in-process) would show as every later tool's peak memory."""
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def check_stages(book: Path) -> dict[str, float]:
    return in_child("stages", str(book))  # type: ignore[return-value]


def _child(args: list[str]) -> None:
    if args[0] == "stages":
        from bench_check import stages

        print(json.dumps(stages(Path(args[1]))))
    else:
        print(json.dumps(lo_figures(Path(args[1]), Path(args[2]), Path(args[3]))))


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
        "extract": CLI + ["extract", str(book)],
        "diff": CLI + ["diff", str(plan), str(book)],
        "show_book": CLI + ["show", str(book), "--format", "json"],
    }
    measure(tools["generate"])
    cells, names = formula_cells(book), defined_names(book)
    lo = None if args.no_libreoffice else soffice_command(book, tmp / "lo")
    if lo is not None:
        tools["libreoffice"] = lo
        warm = measure(lo, args.timeout)  # warm the profile and the page cache: not part of any row
        if warm is None:
            del tools["libreoffice"]  # hung once: it hangs every time (the name limit)
    gnumeric = None if args.no_gnumeric else gnumeric_command(book, tmp / "gnumeric")
    if gnumeric is not None:
        tools["gnumeric"] = gnumeric
    if cells <= args.model_up_to:
        tools["excelmodel"] = MODEL + [str(book)]
    runs: dict[str, list[tuple[float, float, float] | None]] = {tool: [] for tool in tools}
    for _ in range(args.repeat):  # interleaved: a slow moment of the machine hits every tool alike
        for tool, cmd in list(tools.items()):
            got = measure(cmd, args.timeout)
            runs[tool].append(got)
            if got is None or tool == "excelmodel" and got[0] > 60:
                del tools[tool]  # hung, or once is enough at a minute
    row: dict = {"workloads": workloads, "markets": markets, "cells": cells, "names": names}
    if lo is not None and warm is None:
        row["libreoffice"] = "timeout"
    if args.lo_figures and lo is not None:
        row["lo_figures"] = in_child("lo_figures", str(book), str(plan), str(tmp / "lo"))
    for tool, samples in runs.items():
        done = [s for s in samples if s is not None]
        row[tool] = (statistics.median(s for s, _, _ in done), max(mb for _, mb, _ in done),
                     statistics.median(cpu for _, _, cpu in done)) if done else "timeout"
    if args.stages:
        row["stages"] = check_stages(book)
    return row


def _cell(value: tuple[float, ...] | str | None) -> str:
    if value is None:
        return f"{'-':>13}"
    if isinstance(value, str):
        return f"{value:>13}"
    return f"{value[0]:6.2f} {value[1]:4.0f}MB"


def _ratio(a, b, suffix: str = "") -> str | None:
    return f"{a[0] / b[0]:.2f}{suffix}" if isinstance(a, tuple) and isinstance(b, tuple) else None


BUDGETBOOK = ("show", "generate", "check", "extract", "diff", "show_book")
ENGINES = ("libreoffice", "gnumeric", "excelmodel")
HEADS = {"show": "show", "generate": "generate", "check": "check", "extract": "extract", "diff": "diff",
         "show_book": "show BOOK", "libreoffice": "LibreOffice", "gnumeric": "Gnumeric", "excelmodel": "ExcelModel"}


def print_table(rows: list[dict]) -> None:
    plan = lambda row: f"{row['workloads']:>4}x{row['markets']:<3} {row['cells']:7,} {row['names']:7,}"  # noqa: E731
    print(f"{'plan':>8} {'cells':>7} {'names':>7} | " + " ".join(f"{HEADS[t] + ' s':>13}" for t in BUDGETBOOK))
    print("-" * 110)
    for row in rows:
        print(plan(row) + " | " + " ".join(_cell(row.get(t)) for t in BUDGETBOOK))
    print(f"\n{'plan':>8} {'cells':>7} {'names':>7} | " + " ".join(f"{HEADS[t] + ' s':>13}" for t in ENGINES)
          + f" | {'LO = ref':>8} {'check/LO':>8} {'check/Gn':>8} {'Model/check':>11} {'s/1k cells':>10}")
    print("-" * 136)
    for row in rows:
        check = row["check"]
        print(plan(row) + " | " + " ".join(_cell(row.get(t)) for t in ENGINES)
              + f" | {row.get('lo_figures', '-'):>8} {_ratio(check, row.get('libreoffice')) or '-':>8} "
              f"{_ratio(check, row.get('gnumeric')) or '-':>8} {_ratio(row.get('excelmodel'), check, 'x') or '-':>11} "
              f"{1000 * check[0] / row['cells']:10.3f}")
    print(f"\n{'plan':>8} {'cells':>7} {'names':>7} | CPU s (user + system, medians): "
          + " ".join(f"{HEADS[t]:>9}" for t in BUDGETBOOK + ENGINES))
    for row in rows:
        cpu = [f"{row[t][2]:9.2f}" if isinstance(row.get(t), (tuple, list)) else f"{'-':>9}"
               for t in BUDGETBOOK + ENGINES]
        print(plan(row) + " | " + " " * 31 + " ".join(cpu))
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
    parser.add_argument("--sizes", default="10x2,40x4,100x5,140x5",
                        help="WORKLOADSxMARKETS, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--model-up-to", type=int, default=7000, help="run ExcelModel up to this many cells")
    parser.add_argument("--no-libreoffice", action="store_true")
    parser.add_argument("--no-gnumeric", action="store_true")
    parser.add_argument("--lo-figures", action="store_true",
                        help="count LibreOffice's figures equal to the reference (reads its file with openpyxl)")
    parser.add_argument("--stages", action="store_true", help="also time check's stages in-process")
    parser.add_argument("--timeout", type=float, default=180, help="seconds before a run counts as hung")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2:])
        return 0
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        rows = [run_size(w, m, Path(tmp), args) for w, m in parse_sizes(args.sizes)]
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
