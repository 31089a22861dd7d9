"""No function the workbook writes takes more than 255 arguments: LibreOffice computes `#N/A` past it.

Found on a 500-workload, 6-market portfolio (issue 28): 28 of its 105 figures were `#N/A` in
LibreOffice, every one a Compute or Failed-runs total (`=SUM(C12,C22,...)` of 500 workload rows)
or a figure above them (contingency, total). Excel documents the same limit. `sheetkit.rows.sum_arguments`
writes a longer list as SUMs of SUMs. Shown here on a bare book at the limit and past it, and on a small
portfolio with the limit lowered so that its totals nest (the real size, 256 workloads, takes a minute
to generate: `benchmarks/bench_scale.py --sizes 500x6 --lo-figures` compares it).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import openpyxl
import yaml
from cli_run import run
from libreoffice import cell_values, needs_libreoffice, recalculate_many

from budgetbook.planfile.loader import load_plan
from budgetbook.reference import compute_breakdown
from budgetbook.sheetkit import rows
from budgetbook.sheetkit.rows import MAX_ARGUMENTS, sum_arguments

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from portfolio import portfolio_plan  # noqa: E402


def test_sum_arguments_nest_past_the_limit():
    cells = [f"C{n}" for n in range(1, 2 * MAX_ARGUMENTS + 2)]
    assert sum_arguments(cells[:MAX_ARGUMENTS]) == ",".join(cells[:MAX_ARGUMENTS])
    nested = sum_arguments(cells)
    parts = re.findall(r"SUM\(([^()]*)\)", nested)
    assert [len(p.split(",")) for p in parts] == [MAX_ARGUMENTS, MAX_ARGUMENTS, 1]
    assert ",".join(parts) == ",".join(cells)


def _bare_book(path: Path, count: int) -> Path:
    """A1:A<count> hold 1..count; B1 is their SUM, each cell an argument of its own."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for n in range(1, count + 1):
        ws.cell(n, 1, n)
    ws["B1"] = "=SUM(" + ",".join(f"A{n}" for n in range(1, count + 1)) + ")"
    wb.defined_names["total"] = openpyxl.workbook.defined_name.DefinedName("total", attr_text="Sheet!$B$1")
    wb.save(path)
    return path


@needs_libreoffice
def test_libreoffice_sums_255_arguments_and_the_writer_nests_more(capsys, tmp_path, monkeypatch):
    work = tmp_path / "in"
    work.mkdir()
    at, past = _bare_book(work / "at.xlsx", MAX_ARGUMENTS), _bare_book(work / "past.xlsx", MAX_ARGUMENTS + 1)
    plan = work / "portfolio.yaml"
    plan.write_text(yaml.safe_dump(portfolio_plan(9, 2, roles=2), sort_keys=False))
    book = work / "portfolio.xlsx"
    monkeypatch.setattr(rows, "MAX_ARGUMENTS", 4)  # nine workloads: SUMs of four, four and one
    code, _, err = run(capsys, "generate", plan, "-o", book)
    assert code == 0, err
    compute_total = openpyxl.load_workbook(book)["Compute"]
    totals = [c.value for row in compute_total.iter_rows() for c in row
              if isinstance(c.value, str) and c.value.startswith("=SUM(SUM(")]
    assert totals  # the Compute and stage totals of nine workloads nest
    assert run(capsys, "check", book)[0] == 0
    saved = dict(zip(("at", "past", "portfolio"), recalculate_many([at, past, book], tmp_path / "out"), strict=True))
    assert cell_values(saved["at"])["total"] == MAX_ARGUMENTS * (MAX_ARGUMENTS + 1) / 2
    assert cell_values(saved["past"])["total"] == "#N/A"  # LibreOffice's limit, which the writer keeps to
    values = cell_values(saved["portfolio"])
    for figure in compute_breakdown(load_plan(plan)).figures:
        assert math.isclose(values[figure.name], figure.value, rel_tol=1e-9, abs_tol=1e-6), figure.name
