"""How long `budgetbook diff` takes: plan against plan, and plan against its (edited) workbook, by size.

    python benchmarks/bench_diff.py [--repeat N] [--sizes 6x2,60x5,300x5]

Each size is WORKLOADSxMARKETS of a `portfolio.py` plan. The "new" side is the
plan with every market's first GPU price raised 10 %, so every figure changes;
it is timed as a plan file and as its generated workbook (opened, read back
as `extract` reads it, audited), in-process, best of N, beside `show` of one
plan (the reference model, which `diff` runs once per side) and `open_book` (reading the workbook
safely with openpyxl: the floor of any command that reads one).
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from portfolio import portfolio_plan  # noqa: E402
from timing import best  # noqa: E402


def raised(data: dict) -> dict:
    data = copy.deepcopy(data)
    for market in data["markets"]:
        prices = market.get("gpu_prices") or {}
        for gpu in list(prices)[:1]:
            value = prices[gpu]
            prices[gpu] = {k: round(v * 1.1, 6) for k, v in value.items()} if isinstance(value, dict) \
                else round(value * 1.1, 6)
    return data


def main(argv: list[str] | None = None) -> None:
    import warnings

    from budgetbook.api import generate_workbook, show_plan
    from budgetbook.review.diff import diff_budgets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="6x2,60x5,300x5")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from budgetbook.review.readback import open_book

    print(f"{'size':>8} {'figures':>7} {'show':>8} {'open book':>10} {'plan/plan':>10} {'plan/book':>10} "
          f"{'inputs changed':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            workloads, markets = (int(n) for n in size.split("x"))
            data = portfolio_plan(workloads, markets, roles=max(4, workloads // 5))
            old, new = Path(tmp) / f"old-{size}.yaml", Path(tmp) / f"new-{size}.yaml"
            old.write_text(yaml.safe_dump(data, sort_keys=False))
            new.write_text(yaml.safe_dump(raised(data), sort_keys=False))
            book = generate_workbook(new, Path(tmp) / f"new-{size}.xlsx")
            shown = best(lambda: show_plan(old), args.repeat)
            opened = best(lambda: open_book(book), args.repeat)
            plans = best(lambda: diff_budgets(str(old), str(new)), args.repeat)
            books = best(lambda: diff_budgets(str(old), str(book)), args.repeat)
            result = diff_budgets(str(old), str(book))
            figures = len(result.old.breakdown.figures)
            print(f"{size:>8} {figures:>7} {shown:>7.2f}s {opened:>9.2f}s {plans:>9.2f}s {books:>9.2f}s "
                  f"{len(result.inputs):>15}")


if __name__ == "__main__":
    main()
