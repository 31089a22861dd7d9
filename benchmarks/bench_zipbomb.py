"""Refusing zip bombs: budgetbook's open_workbook beside plain openpyxl.load_workbook.

    python benchmarks/bench_zipbomb.py [--baseline-mb 200] [--padding 400]

Each reader runs in a fresh interpreter, so its peak RSS (getrusage) is its
own. Plain openpyxl gets a smaller bomb than budgetbook: on the 2 GB one it
would run for minutes and take many GB. The baseline bomb pads its rows with
whitespace so openpyxl finishes in seconds; without padding (`--padding 0`)
the same size makes it build millions of cells. The baseline child runs under
an address-space limit so the benchmark cannot take the machine down.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import hostile  # noqa: E402  (the crafters the tests use)

CHILD = textwrap.dedent("""
    import json, resource, sys, time
    reader, path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import openpyxl
    from budgetbook.xlsx.safety import open_workbook
    start = time.perf_counter()
    try:
        if reader == "import-only":
            outcome = "imports only"
        elif reader == "budgetbook":
            open_workbook(path)
            outcome = "loaded"
        else:
            wb = openpyxl.load_workbook(path)
            outcome = f"loaded {wb.active.max_row:,} rows"
    except MemoryError:
        outcome = "MemoryError (address-space limit hit)"
    except Exception as exc:
        outcome = f"refused: {str(exc).split(': ', 1)[-1][:70]}"
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "rss": rss, "outcome": outcome}))
""")


def measure(reader: str, path: Path, limit: int = 0) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, reader, str(path), str(limit)],
                            capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        return {"seconds": float("nan"), "rss": 0, "outcome": f"crashed: {result.stderr.strip()[-60:]}"}
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-gb", type=float, default=2.0)
    parser.add_argument("--baseline-mb", type=float, default=200.0)
    parser.add_argument("--padding", type=int, default=400, help="whitespace bytes per row in the baseline bomb")
    parser.add_argument("--baseline-limit-gb", type=float, default=8.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        big = hostile.zip_bomb(tmp / "bomb-2gb.xlsx", int(args.bomb_gb * 1e9))
        liar = hostile.zip_bomb(tmp / "liar-2gb.xlsx", int(args.bomb_gb * 1e9), declared=10_000)
        small = hostile.zip_bomb(tmp / "bomb-small.xlsx", int(args.baseline_mb * 1e6),
                                 padding=args.padding)
        rows = [
            ("python + openpyxl, imports only", "-", measure("import-only", small)),
            ("budgetbook open_workbook", f"{args.bomb_gb:g} GB", measure("budgetbook", big)),
            ("budgetbook open_workbook, lying header", f"{args.bomb_gb:g} GB", measure("budgetbook", liar)),
            ("budgetbook open_workbook", f"{args.baseline_mb:g} MB", measure("budgetbook", small)),
            ("openpyxl.load_workbook", f"{args.baseline_mb:g} MB",
             measure("openpyxl", small, int(args.baseline_limit_gb * 2**30))),
        ]
        sizes = {"bomb": big.stat().st_size, "small": small.stat().st_size}

    print(f"bomb files on disk: {sizes['bomb'] / 1e6:.1f} MB (2 GB inflated), "
          f"{sizes['small'] / 1e6:.1f} MB ({args.baseline_mb:g} MB inflated, padding {args.padding})")
    header = f"{'reader':<40} {'inflated':>9} {'seconds':>9} {'peak RSS':>10}  outcome"
    print(header)
    print("-" * len(header))
    for name, size, m in rows:
        print(f"{name:<40} {size:>9} {m['seconds']:>9.3f} {m['rss'] / 2**20:>7.0f} MB  {m['outcome']}")


if __name__ == "__main__":
    main()
