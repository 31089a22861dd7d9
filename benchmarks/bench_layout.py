"""The layout's CPU seconds, and a digest of everything it lays out, to compare two checkouts.

    PYTHONPATH=CHECKOUT python benchmarks/bench_layout.py PLAN... [--repeat 3] [--dump FILE]

Loading a plan lays its whole workbook out (`planfile.loader.refuse_unwritable` -> `workbook.build`):
every command pays it. For each plan (a file, or a template's name) this prints the CPU seconds
(`time.process_time`) of `build_book`'s first run (as a command pays it) and the least of `--repeat` more,
and a SHA-256 of the blueprint: every sheet's title, role, settings and cells (value, style, number
format, name, text flag; a value or format worked out when read, as it reads) and every
`CellSpec`, in order. Run it with each checkout's PYTHONPATH: equal digests, an identical layout.
`--dump` writes the digested lines themselves, to find where two layouts part; `--gc` sets the
collector's thresholds (by default the command line's, `cli.run`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import hashlib
import time
from collections.abc import Iterator

from budgetbook.planfile.loader import load_plan
from budgetbook.workbook.build import build_book
from budgetbook.workbook.computed import value_of


def lines(book) -> Iterator[str]:
    """The blueprint as text lines, in a fixed order."""
    for sheet in book.sheets:
        fields = {k: v for k, v in vars(sheet).items() if k != "cells"}
        yield f"sheet {fields!r}"
        for (row, col), cell in sorted(sheet.cells.items()):
            yield (f"{row},{col} {value_of(cell.value)!r} {cell.style} {value_of(cell.number_format)!r} {cell.name} "
                   f"{cell.is_text}")
    for spec in book.layout():
        yield repr(spec)
    yield f"names {sorted(book.where)!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("plans", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dump")
    parser.add_argument("--gc", default="50000,20,20", help="the collector's thresholds (the command line's)")
    args = parser.parse_args()
    gc.set_threshold(*(int(part) for part in args.gc.split(",")))
    for spec in args.plans:
        plan = load_plan(spec)
        day = dt.date(2000, 1, 1)
        start = time.process_time()
        book = build_book(plan, day)
        first = time.process_time() - start
        times = []
        for _ in range(args.repeat):
            start = time.process_time()
            build_book(plan, day)
            times.append(time.process_time() - start)
        digest = hashlib.sha256()
        dumped = []
        for text in lines(book):
            digest.update(text.encode() + b"\n")
            if args.dump:
                dumped.append(text)
        if args.dump:
            with open(f"{args.dump}.{spec.replace('/', '_')}", "w", encoding="utf-8") as out:
                out.write("\n".join(dumped))
        cells = sum(1 for s in book.layout() if s.formula)
        print(f"{spec}: {cells:,} formula cells, build_book {first:.3f} CPU s first, "
              f"{min(times):.3f} after (least of {args.repeat}), "
              f"digest {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
