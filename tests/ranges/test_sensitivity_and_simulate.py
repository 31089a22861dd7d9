"""`sensitivity` and `simulate`: the vectorised engine against the plain reference model, and their outputs.

The engine (`budgetbook/ranges/engine.py`) runs the line items' reference rules on numpy arrays; the
plain reference (`reference.py`) runs them on floats, one scenario at a time; a plan written with one
input moved goes through the loader like any plan. They must agree.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from cli_run import run
from hypothesis import assume, given, settings
from strategies import plans

from budgetbook.plan.inputs import with_values
from budgetbook.plan.numbers import Num
from budgetbook.plan.yamlsafe import parse_yaml_text
from budgetbook.planfile.loader import plan_from_data, plan_from_text, resolve, template_names
from budgetbook.ranges.engine import ranged_inputs, totals
from budgetbook.ranges.sensitivity import all_sensitivities, default_market, sensitivity
from budgetbook.ranges.simulate import analytic_mean, sample_totals, simulate
from budgetbook.reference import compute_breakdown, figure_name

TEMPLATES = template_names()


def _template(name):
    source, text = resolve(name)
    return plan_from_text(text, source), parse_yaml_text(text)


def _totals(plan) -> dict[str, tuple[float, float, float]]:
    """(low, base, high) of each market's total, from the plain reference."""
    breakdown = compute_breakdown(plan)
    out = {}
    for m in plan.markets:
        f = next(f for f in breakdown.figures if f.name == figure_name("total", m.id))
        out[m.id] = (f.value if f.low is None else f.low, f.value, f.value if f.high is None else f.high)
    return out


def _ends_agree(plan):
    """The engine with every input at its cheap end (and at its dear end) gives show's low (and high)."""
    cells = ranged_inputs(plan)
    columns = {id(c.num): np.array([c.num.at("low"), c.num.base, c.num.at("high")]) for c in cells}
    engine = totals(plan, columns, 3)
    for market, (low, base, high) in _totals(plan).items():
        assert engine[market] == pytest.approx([low, base, high], rel=1e-12, abs=1e-9), market


@pytest.mark.parametrize("template", TEMPLATES)
def test_engine_at_the_ends_is_show_low_and_high_for_templates(template):
    _ends_agree(_template(template)[0])


@settings(max_examples=30)
@given(plans())
def test_engine_at_the_ends_is_show_low_and_high_for_random_plans(plan_and_text):
    _ends_agree(plan_and_text[0])


def _moved_alone(plan, data, cell, end, market):
    """The plain reference with one input at one end: a plan written with it, loaded like any plan."""
    moved = plan_from_data(with_values(data, {cell.path: Num.of(getattr(cell.num, end))}), "moved.yaml",
                           shaped_like=plan)
    return compute_breakdown(moved).value(figure_name("total", market))


def _sensitivity_agrees(plan, data):
    for market, result in all_sensitivities(plan).items():
        swings = [s.swing for s in result.inputs]
        assert swings == sorted(swings, reverse=True)
        assert result.base == compute_breakdown(plan).value(figure_name("total", market))
        by_name = {c.name: c for c in ranged_inputs(plan)}
        assert sorted(s.name for s in result.inputs) == sorted(by_name)
        for s in result.inputs:
            cell = by_name[s.name]
            assert (s.low, s.high) == (cell.num.low, cell.num.high)
            assert s.low_total == pytest.approx(_moved_alone(plan, data, cell, "low", market), rel=1e-12, abs=1e-9)
            assert s.high_total == pytest.approx(_moved_alone(plan, data, cell, "high", market), rel=1e-12, abs=1e-9)
            assert s.swing == pytest.approx(abs(s.high_total - s.low_total))


@pytest.mark.parametrize("template", TEMPLATES)
def test_sensitivity_is_sorted_and_each_total_is_the_reference_with_that_input_moved(template):
    _sensitivity_agrees(*_template(template))


@settings(max_examples=8)
@given(plans())
def test_sensitivity_agrees_with_the_reference_on_random_plans(plan_and_text):
    plan, text = plan_and_text
    _sensitivity_agrees(plan, parse_yaml_text(text))


def test_sensitivity_reads_the_cheapest_market_by_default_and_any_other_on_request():
    plan, _ = _template("pretrain-7b")
    totals_ = {m: t[1] for m, t in _totals(plan).items()}
    assert default_market(plan) == min(totals_, key=totals_.__getitem__) == "decentralized_market"
    assert sensitivity(plan, "neo_cloud").market == "neo_cloud"
    top = sensitivity(plan, "neo_cloud").inputs[0]
    assert top.name == "wl_pretrain_mfu" and top.low_total > top.high_total  # a higher MFU costs less


@pytest.mark.parametrize("template", TEMPLATES)
def test_simulate_is_reproducible_and_its_p10_p90_lie_inside_best_and_worst(template):
    plan, _ = _template(template)
    first = simulate(plan, 20_000, 7).as_json()
    assert simulate(plan, 20_000, 7).as_json() == first
    assert simulate(plan, 20_000, 8).as_json() != first
    for market, (best, _base, worst) in _totals(plan).items():
        stats, slack = first["markets"][market], 1e-9 * max(1.0, abs(worst))  # sums in another order
        assert best - slack <= stats["p10"] <= stats["p50"] <= stats["p90"] <= worst + slack, market
        assert best - slack <= stats["mean"] <= worst + slack
        assert set(stats["cheaper"]) == {m.id for m in plan.markets} - {market}


@settings(max_examples=25)
@given(plans())
def test_p10_p90_lie_inside_best_and_worst_on_random_plans_without_commitments(plan_and_text):
    """Without a commitment each total moves one way with each input, so best and worst bound every draw.
    (A commitment's idle and overflow hours can make a draw inside the ranges cheaper than `best`: README.)"""
    plan = plan_and_text[0]
    assume(not plan.commitments)
    # nor an owned cluster held for its life (no `months`) with a ranged life: a longer life lowers the
    # depreciation a month but holds the cluster, and pays its energy and facility, for longer
    assume(not any(m.owned is not None and m.owned.months is None and m.owned.life_years.ranged
                   for m in plan.markets))
    # nor a ranged start under a trend that makes later work cheaper (an efficiency gain, falling prices): the
    # start's cheap end is declared the early one (`lowers_cost`), true only without such a trend (docs/ranges.md)
    assume(not (_ranged_start(plan) and _later_is_cheaper(plan)))
    result = simulate(plan, 2_000, 5)
    for market, (best, _base, worst) in _totals(plan).items():
        stats, slack = result.markets[market], 1e-9 * max(1.0, abs(worst))
        assert best - slack <= stats.p10 <= stats.p50 <= stats.p90 <= worst + slack, market


def _ranged_start(plan) -> bool:
    starts = [w.start for w in plan.workloads] + [m.owned.start for m in plan.markets if m.owned is not None]
    return any(getattr(start, "ranged", False) for start in starts)


def _later_is_cheaper(plan) -> bool:
    gains = [w.efficiency_change_per_year for w in plan.workloads if w.efficiency_change_per_year is not None]
    falls = [m.price_change_per_year for m in plan.markets if m.price_change_per_year is not None]
    return any(g.high > 0 for g in gains) or any(f.low < 0 for f in falls)


def test_probability_another_market_is_cheaper_is_read_from_the_same_draws():
    plan, _ = _template("pretrain-7b")
    result = simulate(plan, 5_000, 3)
    draws = sample_totals(plan, 5_000, 3, "triangular")
    for market, stats in result.markets.items():
        for other, p in stats.cheaper.items():
            assert p == np.mean(draws[other] < draws[market])
            assert p + result.markets[other].cheaper[market] <= 1.0  # ties count for neither
    assert sum(s.cheapest for s in result.markets.values()) == pytest.approx(1.0)


LINEAR = """
name: linear
markets:
  - {id: cloud, gpu_prices: {H100: {low: 2.0, base: 2.5, high: 4.0}}}
  - {id: spot, gpu_prices: {H100: {low: 1.0, base: 1.2, high: 3.0}},
     extra_engineering_days: {low: 0, base: 2, high: 10}}
workloads:
  - {id: train, gpu: H100, ideal_gpu_hours: {low: 8000, base: 10000, high: 16000},
     utilization: {low: 1.3, base: 1.5, high: 1.9}, waste: {low: 0.1, base: 0.2, high: 0.45}}
people:
  engineering_day_cost: 1000
  roles: [{role: ML engineer, count: 2, months: {low: 1, base: 2, high: 4}, monthly_cost: 20000}]
"""


@pytest.mark.parametrize("distribution", ["triangular", "pert"])
def test_simulated_mean_converges_to_the_analytic_mean(distribution):
    """Each total is a sum of products of independently drawn inputs (no MFU divides, no commitment clips),
    so its mean is the reference model at each input's mean; 200,000 samples put the simulated mean
    within a few standard errors of it."""
    plan = plan_from_text(LINEAR, "linear.yaml")
    data = parse_yaml_text(LINEAR)
    means = {c.path: Num.of(analytic_mean(c, distribution)) for c in ranged_inputs(plan)}
    analytic = compute_breakdown(plan_from_data(with_values(data, means), "means.yaml"))
    samples = 200_000
    draws = sample_totals(plan, samples, 11, distribution)
    for market, values in draws.items():
        standard_error = values.std() / math.sqrt(samples)
        want = analytic.value(figure_name("total", market))
        assert abs(values.mean() - want) <= 5 * standard_error, (market, values.mean(), want, standard_error)
        assert simulate(plan, samples, 11, distribution).markets[market].mean == values.mean()


def test_a_market_price_is_one_draw_for_every_workload_on_it():
    """Two identical workloads on one market: independent prices would make their compute differ."""
    text = LINEAR.replace("workloads:\n", "workloads:\n  - {id: twin, gpu: H100, ideal_gpu_hours: 10000, "
                          "utilization: 1.5}\n  - {id: twin2, gpu: H100, ideal_gpu_hours: 10000, utilization: 1.5}\n")
    plan = plan_from_text(text, "twins.yaml")
    from budgetbook.ranges.engine import Vectors

    rng = np.random.default_rng(0)
    columns = {id(c.num): rng.uniform(c.num.low, c.num.high, 50) for c in ranged_inputs(plan)}
    resolved = Vectors(plan, columns)
    prices = [m.gpu_prices["H100"] for m in resolved.markets]
    assert prices[0] is resolved.markets[0].gpu_prices["H100"]
    assert not np.array_equal(prices[0], prices[1])  # different markets: independent draws
    twin, twin2 = resolved.workloads[0], resolved.workloads[1]
    assert twin.ideal_gpu_hours == twin2.ideal_gpu_hours == 10000  # unranged: the same plain number


# ---------------------------------------------------------------- the commands

def test_sensitivity_json(capsys):
    code, out, err = run(capsys, "sensitivity", "pretrain-7b", "--market", "neo_cloud", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert {"market", "base", "inputs"} <= set(data) and data["market"] == "neo_cloud"
    keys = {"input", "name", "low_total", "high_total", "swing"}
    assert data["inputs"] and all(keys <= set(i) for i in data["inputs"])
    assert [i["swing"] for i in data["inputs"]] == sorted((i["swing"] for i in data["inputs"]), reverse=True)
    assert data["inputs"][0]["input"] == "workloads[0].mfu"


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_sensitivity_and_simulate_other_formats(capsys, fmt):
    code, out, err = run(capsys, "sensitivity", "finetune-13b-lora", "--format", fmt)
    assert code == 0, err
    assert "waste" in out
    code, out, err = run(capsys, "simulate", "finetune-13b-lora", "--samples", "2000", "--format", fmt)
    assert code == 0, err
    # the table names a market by its label, as every table does; CSV and Markdown keep the id, a key
    assert ("Decentralized market" if fmt == "table" else "decentralized_market") in out
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [r["market"] for r in rows] == ["hyperscaler_on_demand", "decentralized_market"]
        assert float(rows[0]["p_cheaper_decentralized_market"]) == 1.0


def test_simulate_json_is_reproducible(capsys):
    args = ("simulate", "lab-year", "--samples", "100000", "--seed", "42", "--distribution", "pert", "--format", "json")
    code, first, err = run(capsys, *args)
    assert code == 0, err
    assert run(capsys, *args)[1] == first
    data = json.loads(first)
    assert (data["samples"], data["seed"], data["distribution"]) == (100_000, 42, "pert")
    assert set(data["markets"]) == {"hyperscaler_commit", "decentralized_market", "hybrid"}
    assert {"p10", "p50", "p90", "mean", "cheaper"} <= set(data["markets"]["hybrid"])


@pytest.mark.parametrize("args, problem", [
    (("sensitivity", "pretrain-7b", "--market", "moon"), "`--market moon`: the plan has no such market"),
    (("simulate", "--samples", "0"), "`--samples 0`: expected 1 to"),
    (("simulate", "--seed", "-1"), "`--seed -1`"),
    (("simulate", "--distribution", "normal"), "normal"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, args, problem):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert problem in err and err.count("\n") == 1, err


def test_draws_that_differ_by_rounding_alone_make_one_bar():
    """A ranged start that moves nothing (a one-month run, flat prices) gives totals 1e-16 apart: numpy cannot cut
    that into 60 bins (hypothesis found it); the histogram is one value's."""
    text = ("name: flat\nmarkets: [{id: m, gpu_prices: {TPU_v5: 1}, price_change_per_year: 0}]\n"
            "workloads: [{id: w, gpu: TPU_v5, allocated_gpu_hours: 1, peak_tflops: 100,"
            " start: {low: 0, base: 0, high: 1}}]\n")
    stats = simulate(plan_from_text(text, "flat.yaml"), 2_000, 5).markets["m"]
    edges, counts = stats.histogram
    assert stats.p10 == pytest.approx(1.0) and stats.p90 == pytest.approx(1.0)
    assert sum(counts) == 2_000 and edges[0] == pytest.approx(0.5) and edges[-1] == pytest.approx(1.5)
