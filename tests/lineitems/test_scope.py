"""Scope: the features' requests, growth and tokens give serving its volume, input and output apart; an API priced
per input and per output token charges each its price. By hand, both ways (reference and workbook)."""

import pytest
from lineitem_case import plan_yaml

from budgetbook.errors import PlanError
from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook

SERVING = {"gpu": "H100_SXM", "tokens_per_second_per_gpu": 1000, "months": 12,
           "api_input_price_per_million_tokens": 0.5, "api_output_price_per_million_tokens": 1.5}
SCOPE = {"features": [
    {"name": "Ticket triage", "requests_per_month": 200_000, "input_tokens_per_request": 1500,
     "output_tokens_per_request": 200, "growth": 0.05},
    {"name": "Reply drafts", "requests_per_month": 100_000, "input_tokens_per_request": 2000,
     "output_tokens_per_request": 400, "months": 6}]}


def test_features_give_serving_its_tokens_and_the_api_its_two_prices(tmp_path):
    # triage grows 5% a month for 12 months: (1.05^12 - 1) / 0.05 = 15.917 first months' worth of requests;
    # drafts run 6 of the 12 months without growth
    triage = 200_000 * (1.05 ** 12 - 1) / 0.05
    into = (triage * 1500 + 100_000 * 6 * 2000) / 12   # 497.9M input tokens a month on average
    out = (triage * 200 + 100_000 * 6 * 400) / 12       # 73.1M output tokens a month
    tokens = into + out
    expected = {"svc_input_tokens_a": into, "svc_output_tokens_a": out, "svc_tokens_a": tokens,
                "svc_api_per_million_a": (into * 0.5 + out * 1.5) / tokens,
                "serving_a": tokens / 1000 / 3600 * 12 * 3,                 # market a: $3 an H100-hour
                "serving_api_a": (into * 0.5 + out * 1.5) / 1e6 * 12}
    text = plan_yaml(serving=SERVING, scope=SCOPE)
    plan = plan_from_text(text)
    reference = {f.name: f.value for f in compute_breakdown(plan).figures}
    write_workbook(plan, text, book := tmp_path / "scope.xlsx")
    evaluated = evaluate_workbook(book)
    assert evaluated["checks_ok"] is True
    for name, value in expected.items():
        assert evaluated[name] == pytest.approx(value, rel=1e-12), name
        if name.startswith("serving"):
            assert reference[name] == pytest.approx(value, rel=1e-12), name
    assert round(reference["serving_api_a"]) == 4303


def test_the_volume_is_given_one_way():
    with pytest.raises(PlanError, match="the scope's features give serving its volume"):
        plan_from_text(plan_yaml(serving=SERVING | {"tokens_per_month": 1e9}, scope=SCOPE))
    with pytest.raises(PlanError, match="give `tokens_per_month`, or `requests_per_month`"):
        plan_from_text(plan_yaml(serving=SERVING))
    with pytest.raises(PlanError, match="input and output tokens of the scope's features"):
        plan_from_text(plan_yaml(serving=SERVING | {"tokens_per_month": 1e9}))
    with pytest.raises(PlanError, match="not both"):
        plan_from_text(plan_yaml(serving=SERVING | {"api_price_per_million_tokens": 1}, scope=SCOPE))
    with pytest.raises(PlanError, match="needs a `serving` section"):
        plan_from_text(plan_yaml(scope=SCOPE))
