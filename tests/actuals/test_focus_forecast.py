"""`budgetbook export PLAN|BOOK --format focus-forecast` (issue 30 item 3): the plan's months as FOCUS-shaped
forecast rows.

For every template's sample workbook: the export passes the FOCUS 1.4 Cost and Usage linter of
`focus-data-toolkit` (structural and semantic rules of the FinOps Foundation's 1.4 data model, over every
column the export writes; mandatory columns present, formats, allowed values, nulls); every row is marked a
forecast; and its rows add up, market by market and month by month, to the workbook's own Cash flow (the
formulas' cached values: the other implementation), line by line where the line has its Cash flow row.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from cli_run import run, sha
from focus_data_toolkit.model.validator import lint_focus_1_4_structure

from budgetbook.actuals.focus_forecast import COLUMNS, CUSTOM
from budgetbook.api import export_plan, list_templates
from budgetbook.errors import PlanError
from budgetbook.planfile.loader import template_text

SAMPLES = Path(__file__).parents[2] / "samples"
TEMPLATES = [name for name, _ in list_templates()]
START = "2027-03"   # the first month of the templates that give none (`--start`)


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _cash_flow(book: Path) -> dict[str, float]:
    """The workbook's cached values of its `cf_*` names (what Excel or LibreOffice computed when it was saved)."""
    wb = openpyxl.load_workbook(book, data_only=True, read_only=False)
    out = {}
    for name, defined in wb.defined_names.items():
        if name.startswith("cf_"):
            sheet, ref = next(iter(defined.destinations))
            out[name] = wb[sheet][ref.replace("$", "")].value
    return out


def test_templates_have_their_sample_book():
    assert all((SAMPLES / f"{t}.xlsx").is_file() for t in TEMPLATES)


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_forecast_of_every_template_lints_and_adds_up_to_its_cash_flow(template):
    book = SAMPLES / f"{template}.xlsx"
    try:
        rows = _rows(export_plan(book))
    except PlanError:  # a plan without `start:` is dated by --start
        rows = _rows(export_plan(book, start=START))
        assert min(r["ChargePeriodStart"] for r in rows) == f"{START}-01T00:00:00Z"
    assert rows and list(rows[0]) == list(COLUMNS + CUSTOM)
    report = lint_focus_1_4_structure("Cost and Usage", rows)
    assert report.ok, report.messages()[:5]
    assert {r["x_Forecast"] for r in rows} == {"true"} and all(r["ChargeDescription"].startswith("Forecast: ")
                                                               for r in rows)
    cf = _cash_flow(book)
    months = sorted({r["ChargePeriodStart"][:7] for r in rows})
    by_month: dict[tuple[str, int], Decimal] = defaultdict(Decimal)
    lines = 0
    for r in rows:
        n = months.index(r["ChargePeriodStart"][:7]) + 1
        assert r["BilledCost"] == r["EffectiveCost"] == r["ListCost"] == r["ContractedCost"]
        assert "e" not in r["BilledCost"].lower()
        by_month[(r["x_Market"], n)] += Decimal(r["BilledCost"])
        line = cf.get(f"cf_{r['x_LineItem']}_{r['x_Market']}_m{n}")
        if line is not None:
            lines += 1
            assert float(r["BilledCost"]) == pytest.approx(line, rel=1e-9, abs=1e-6), (r["x_LineItem"], n)
    assert lines >= len(rows) // 2  # most lines have their own Cash flow row (a further item may sum into one)
    markets = {r["x_Market"] for r in rows}
    for market in markets:
        for n in range(1, len(months) + 1):
            assert float(by_month[(market, n)]) == pytest.approx(cf[f"cf_total_{market}_m{n}"], rel=1e-9,
                                                                 abs=1e-6), (market, n)


def test_the_linter_refuses_what_focus_does_not_allow():
    """The linter is not a rubber stamp: a value outside FOCUS's is found."""
    rows = _rows(export_plan("pretrain-7b"))
    rows[0]["ServiceCategory"], rows[1]["BilledCost"], rows[2]["ChargePeriodStart"] = "GPU", "1,5", "2026-01"
    bad = {v.rule for v in lint_focus_1_4_structure("Cost and Usage", rows).violations}
    assert {"not_in_allowed_values", "bad_numeric_format"} <= bad and len(bad) >= 3


def test_cli_export_writes_the_file_and_keeps_its_inputs(capsys, tmp_path):
    book = SAMPLES / "pretrain-7b.xlsx"
    before = sha(book)
    out = tmp_path / "forecast.csv"
    code, _, err = run(capsys, "export", book, "--format", "focus-forecast", "-o", out)
    assert code == 0 and str(out) in err and sha(book) == before
    assert _rows(out.read_text()) == _rows(export_plan(book))
    code, _, err = run(capsys, "export", "pretrain-7b", "-o", out)
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1
    code, printed, _ = run(capsys, "export", "pretrain-7b")
    assert code == 0 and printed.startswith("BilledCost,")


def test_a_plan_without_a_start_month_is_one_line(capsys, tmp_path):
    plan = "finetune-13b-lora"  # gives no `start:`
    code, out, err = run(capsys, "export", plan, "-o", tmp_path / "f.csv")
    assert code == 2 and "--start YYYY-MM" in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"Error: {plan}: has no `start:` month"), err  # the plan named (it was not)
    assert not (tmp_path / "f.csv").exists()
    (tmp_path / "p.yaml").write_text(template_text(plan))
    code, out, err = run(capsys, "export", tmp_path / "p.yaml")
    assert (code, out) == (2, "") and err.startswith(f"Error: {tmp_path / 'p.yaml'}: has no `start:` month"), err
    code, _, err = run(capsys, "export", plan, "--start", "2026-13", "-o", tmp_path / "f.csv")
    assert code == 2 and "YYYY-MM" in err and not (tmp_path / "f.csv").exists()
    code, _, err = run(capsys, "export", "pretrain-7b", "--start", "2027-01")
    assert code == 2 and "starts 2026-01 already" in err
    code, _, _ = run(capsys, "export", plan, "--start", "2026-04", "-o", tmp_path / "f.csv")
    assert code == 0 and _rows((tmp_path / "f.csv").read_text())[0]["ChargePeriodStart"] == "2026-04-01T00:00:00Z"
