"""Serving: tokens per month / tokens per second per GPU / 3600 x months x price; and the API price beside it."""

from lineitem_case import assert_figures, plan_yaml


def test_own_gpus_and_api(tmp_path):
    # 3.6e9 tokens a month / 1,000 tokens/s / 3,600 = 1,000 GPU-hours a month, x 2 months x $3
    serving = {"gpu": "H100_SXM", "tokens_per_month": 3.6e9, "tokens_per_second_per_gpu": 1000, "months": 2,
               "api_price_per_million_tokens": 1.0}
    figures = assert_figures(tmp_path, plan_yaml(serving=serving), {
        "serving_a": 6000, "serving_b": 4000,
        "serving_api_a": 3.6e9 * 2 / 1e6 * 1.0})   # the same tokens bought at $1 per million
    assert figures["total_a"] == 4500  # compute only: serving is never inside the total
