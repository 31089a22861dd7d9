"""`fit`: a budget back to the input it buys, landing on the budget to the half cent.

One worked example against a hand computation (pretrain-7b's tokens on the decentralized market),
the failures (one line, exit 2, nothing written), a deadline that binds, and a property over random
plans: the solved plan, written and read back, lands on the budget for every `--solve` (reference
model only, no workbook).
"""

from __future__ import annotations

import json

import pytest
from cli_run import run
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import plans

from budgetbook.errors import UsageError
from budgetbook.planfile.loader import plan_from_text, resolve
from budgetbook.planfile.rewrite import rewrite_values
from budgetbook.planning.fit import TOLERANCE, fit, shortest
from budgetbook.planning.targets import SOLVES
from budgetbook.reference import compute_breakdown, market_lines


def test_tokens_for_a_budget_by_hand(capsys, tmp_path):
    # pretrain-7b on the decentralized market: the pretrain's cost per token is
    # 6 FLOP x 7e9 params / (989 TFLOP/s x 3600 s) / MFU 0.5 x $1.80 x (1 + 0.15 waste + reliability), the
    # template's reliability being the goodput uplift of 1.15 interruptions a day, each losing half a 2.4 h
    # checkpoint interval and a 1 h restart, plus half the work executed twice (verification);
    # everything else (ablations, storage, people) stays, so tokens = 5e12 + (budget - total) / that
    lost = 1.15 / 24 * (2.4 / 2 + 1)
    per_token = 6 * 7e9 / (989e12 * 3600) / 0.5 * 1.80 * (1 + 0.15 + lost / (1 - lost) + 0.5)
    total = compute_breakdown(plan_from_text(resolve("pretrain-7b")[1])).value("total_decentralized_market")
    budget = 1_000_000
    expected = 5e12 + (budget - total) / per_token
    out = tmp_path / "solved.yaml"
    code, stdout, err = run(capsys, "fit", "pretrain-7b", "--budget", budget, "--solve", "tokens",
                            "-m", "decentralized_market", "-o", out, "--format", "json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["binds"] == "budget" and result["method"] == "closed_form"
    assert result["value"] == pytest.approx(expected, rel=1e-6)
    assert abs(result["total"] - budget) <= TOLERANCE
    text = out.read_text()
    assert "# assumption: ~5T tokens" in text          # comments kept
    assert f"tokens: {int(result['value'])}" in text   # the shortest decimal that lands
    shown = compute_breakdown(plan_from_text(text)).value("total_decentralized_market")
    assert abs(shown - budget) <= TOLERANCE


def test_params_follow_tokens_and_the_block_is_bisected(capsys):
    code, stdout, err = run(capsys, "fit", "pretrain-7b", "--budget", 2.5e6, "--solve", "params",
                            "-m", "hyperscaler_commit", "--tokens-per-param", 25, "--format", "json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["method"] == "bisection" and result["tokens_per_param"] == 25
    assert result["follows"]["workloads[0].flops.tokens"] == pytest.approx(25 * result["value"])
    assert abs(result["total"] - 2.5e6) <= TOLERANCE


def test_fit_of_a_book_solves_its_current_inputs(capsys, tmp_path):
    # as `show BOOK` reads it: the decentralized price typed from $1.80 to $2.00 in the workbook
    import openpyxl
    from cli_run import sha

    from budgetbook.workbook.write import write_workbook

    source, text = resolve("pretrain-7b")
    book = write_workbook(plan_from_text(text, source), text, tmp_path / "book.xlsx")
    wb = openpyxl.load_workbook(book)
    sheet, ref = next(iter(wb.defined_names["mkt_decentralized_market_price_h100_sxm"].destinations))
    wb[sheet][ref.replace("$", "")] = 2.00
    wb.save(book)
    before = sha(book)
    code, stdout, err = run(capsys, "show", book, "--format", "json")
    total = next(f["value"] for f in json.loads(stdout)["figures"] if f["name"] == "total_decentralized_market")
    out = tmp_path / "solved.yaml"
    code, stdout, err = run(capsys, "fit", book, "--budget", 1e6, "--solve", "tokens", "-m", "decentralized_market",
                            "-o", out, "--format", "json")
    assert code == 0 and sha(book) == before, err
    result = json.loads(stdout)
    lost = 1.15 / 24 * (2.4 / 2 + 1)  # as by hand above, at the edited price
    per_token = 6 * 7e9 / (989e12 * 3600) / 0.5 * 2.00 * (1 + 0.15 + lost / (1 - lost) + 0.5)
    assert result["was_total"] == pytest.approx(total, abs=TOLERANCE)
    assert result["value"] == pytest.approx(5e12 + (1e6 - total) / per_token, rel=1e-6)
    solved = plan_from_text(out.read_text())  # the book's plan, its edited price kept, the tokens solved
    assert solved.markets[2].gpu_prices["H100_SXM"].base == 2.00
    assert abs(compute_breakdown(solved).value("total_decentralized_market") - 1e6) <= TOLERANCE


@pytest.mark.parametrize(("args", "says"), [
    (("pretrain-7b", "--budget", 100_000, "--solve", "tokens"), "over it"),
    (("finetune-13b-lora", "--budget", 1e6, "--solve", "tokens"), "takes its hours from `ideal_gpu_hours`"),
    (("deepseek-v3", "--budget", 1e9, "--solve", "runs", "-w", "exploratory", "--deadline", 1), "it needs"),
    (("pretrain-7b", "--budget", 1e6, "--solve", "runs", "-m", "nowhere"), "no such market"),
    (("pretrain-7b", "--budget", 1e6, "--solve", "days"), "takes its hours from `flops`"),
    (("pretrain-7b", "--budget", 1e6), "or a `fit:` section in the plan"),
])
def test_failures_are_one_line_exit_2_nothing_written(capsys, tmp_path, args, says):
    out = tmp_path / "solved.yaml"
    code, stdout, err = run(capsys, "fit", *args, "-o", out)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and stdout == ""


def test_a_deadline_binds_before_the_budget(capsys, tmp_path):
    text = resolve("pretrain-7b")[1].replace("    final_run: true\n", "    final_run: true\n    gpus: 64\n", 1)
    plan = tmp_path / "plan.yaml"
    plan.write_text(text)
    code, stdout, err = run(capsys, "fit", plan, "--budget", 5e6, "--solve", "tokens", "--deadline", 30,
                            "--format", "json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["binds"] == "deadline" and result["total"] < 5e6
    assert 30 * (1 - 1e-9) <= result["days_per_run"] <= 30


def test_shortest_decimal():
    assert shortest(5.2000000000131e12, lambda v: abs(v - 5.2e12) < 1e3) == 5.2e12
    assert shortest(0.0123456, lambda v: abs(v - 0.0123456) < 1e-6) == 0.012346


@given(plans(), st.sampled_from(SOLVES), st.floats(1.01, 4))
@settings(max_examples=60)
def test_the_solved_plan_lands_on_the_budget(pair, solve, factor):
    plan, text = pair
    market = plan.markets[0].id
    budget = market_lines(plan, market, "base")["total"] * factor
    way = {"tokens": "flops", "params": "flops", "gpus": "cluster", "days": "cluster"}.get(solve)
    fitting = [w.id for w in plan.workloads if way is None or w.hours_given == way]
    try:
        result = fit(plan, budget, solve, market=market, workload=(fitting or [plan.workloads[0].id])[0])
    except UsageError:
        return  # an input the workload does not have, a budget out of reach, ...: one line (tested above)
    solved = plan_from_text(rewrite_values(text, plan, result.values))
    total = compute_breakdown(solved).value(f"total_{market}")
    assert total == result.total
    if result.binds == "budget":
        assert abs(total - budget) <= TOLERANCE
    else:
        assert total <= budget + TOLERANCE
