"""Contingency: a share of the development cost before it, added into the total; not of final run or serving."""

from lineitem_case import assert_figures, plan_yaml


def test_share_of_the_development_cost_before_it(tmp_path):
    text = plan_yaml(items=[{"id": "data", "cost": 5500}], contingency={"share": {"low": 0.05, "base": 0.1,
                                                                                   "high": 0.2}},
                     serving={"gpu": "H100_SXM", "tokens_per_month": 3.6e9, "tokens_per_second_per_gpu": 1000,
                              "months": 2})
    # a: compute 1,500 h x $3 = 4,500 + data 5,500 = 10,000 before contingency; serving is not in it
    figures = assert_figures(tmp_path, text, {"contingency_a": 1000, "total_a": 11000,
                                              "contingency_b": 850, "total_b": 9350})
    assert figures["serving_a"] == 6000


def test_no_section_no_sheet(tmp_path):
    figures = assert_figures(tmp_path, plan_yaml(), {"total_a": 4500})
    assert not any(name.startswith("contingency") for name in figures)
