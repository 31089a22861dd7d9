"""`options`: an API against the plan's own model, the break-even volume by hand (deepseek-v3); the Options
sheet live in LibreOffice after an edited API price, and `check` holding it to the reference."""

from __future__ import annotations

import json

import openpyxl
import pytest
from cli_run import run
from libreoffice import cell_values, needs_libreoffice, recalculate

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import load_plan, plan_from_text, template_text
from budgetbook.planning.options import sheet_rows
from budgetbook.reference import compute_breakdown


def test_breakeven_by_hand_on_deepseek_v3(capsys):
    # deepseek-v3 serves 1e12 tokens a month for 12 months: the API at $1.10 per million costs $1.1M a month;
    # own serving at 1,850 tokens/s per H800 and $2 an hour costs 2 / (1,850 x 3,600) x 1e6 = $0.3003 per million.
    # Break-even: development / (12 x (1.10 - 0.3003) / 1e6) tokens a month
    development = compute_breakdown(load_plan("deepseek-v3")).value("total_h800_rental")
    own_per_million = 2 / (1850 * 3600) * 1e6
    breakeven = development / (12 * (1.10 - own_per_million) / 1e6)
    code, out, err = run(capsys, "options", "deepseek-v3", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    api, own = data["options"]
    assert set(api) == {"id", "kind", "label", "development", "serving_per_month", "total",
                        "breakeven_tokens_per_month"}
    assert (api["id"], api["kind"], api["development"], api["breakeven_tokens_per_month"]) == ("api", "api", 0, None)
    assert api["serving_per_month"] == pytest.approx(1.1e6) and api["total"] == pytest.approx(13.2e6)
    assert own["kind"] == "pretrain" and own["development"] == development
    assert own["serving_per_month"] == pytest.approx(1e12 / 1e6 * own_per_million)
    assert own["breakeven_tokens_per_month"] == pytest.approx(breakeven, rel=1e-12)
    assert 5.1e12 < breakeven < 5.2e12 and data["cheapest"] == "api"
    code, out, _ = run(capsys, "options", "deepseek-v3", "--format", "markdown")
    assert "| Call an API | api | $0 | $1,100,000 | $13,200,000 |  |" in out and "5.13T" in out


def test_a_plan_without_an_api_price_is_one_line(capsys):
    code, out, err = run(capsys, "options", "pretrain-7b")
    assert code == 2 and "api_price_per_million_tokens" in err and len(err.strip().splitlines()) == 1


@needs_libreoffice
def test_the_options_sheet_is_live_after_an_edited_api_price(capsys, tmp_path):
    # deepseek-v3's workbook, its API price typed up from $1.10 to $3.00 per million; LibreOffice recalculates
    book = generate_workbook("deepseek-v3", tmp_path / "book.xlsx")
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names["srv_api_price_per_million_tokens"].destinations))
    wb[sheet][ref.replace("$", "")] = 3.0
    wb.save(edited := tmp_path / "edited.xlsx")
    recalculated = cell_values(recalculate(edited, tmp_path / "lo"))
    plan = plan_from_text(template_text("deepseek-v3").replace("api_price_per_million_tokens: 1.10",
                                                               "api_price_per_million_tokens: 3.00"))
    rows = list(sheet_rows(plan))
    assert {name for name, *_ in rows} >= {"opt_breakeven_h800_rental", "opt_api_total_h800_rental"}
    for name, _key, _market, _label, expected in rows:
        assert recalculated[name] == pytest.approx(expected, rel=1e-9), name
    # by hand: 49,275,779.4 / (12 x (3.00 - 0.3003) / 1e6) = 1.52T tokens a month, down from 5.13T
    assert recalculated["opt_breakeven_h800_rental"] == pytest.approx(
        49_275_779.4 / (12 * (3.0 - 2 / (1850 * 3600) * 1e6) / 1e6), rel=1e-9)
    code, out, err = run(capsys, "check", edited, "--format", "json")
    assert code == 0 and json.loads(out)["ok"], out
