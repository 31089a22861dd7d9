"""`options`: an API against the plan's own model, the break-even volume by hand (deepseek-v3)."""

from __future__ import annotations

import json

import pytest
from cli_run import run

from budgetbook.planfile.loader import load_plan
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
