"""`options`: an API against the plan's own model, the break-even volume by hand (deepseek-v3), and against the
scope's candidates fine-tuned or trained (support-assistant); the Options sheet live in LibreOffice after an
edited API price, and `check` holding it to the reference."""

from __future__ import annotations

import json

import openpyxl
import pytest
from cli_run import run
from libreoffice import cell_values, needs_libreoffice, recalculate_many

from budgetbook.api import generate_workbook
from budgetbook.planfile.loader import load_plan, plan_from_text, template_text
from budgetbook.planning.options import sheet_rows
from budgetbook.reference import compute_breakdown
from budgetbook.xlsx.evaluate import evaluate_workbook


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


def _support_by_hand(api_in: float = 2.50) -> dict[str, float]:
    """support-assistant by hand: its three features' tokens, GPT-4o's two prices, Llama 3.1 8B LoRA on an H100."""
    answers = 300_000 * (1.05 ** 12 - 1) / 0.05           # 5% growth a month over 12 months: 15.9 months' worth
    summaries, drafts = 150_000 * 12, 100_000 * 9          # no growth; drafts ship three months in
    into = (answers * 3000 + summaries * 2000 + drafts * 2500) / 12
    out = (answers * 300 + summaries * 150 + drafts * 250) / 12
    api = (into * api_in + out * 10.00) / (into + out)      # blended price per million tokens
    memory = 8.03e9 * 2 / 1e9 + 2 * 32 * 8 * 128 * 2 * 4096 * 32 / 1e9   # 16.06 GB weights + 17.18 GB KV cache
    own = 2.99 / (32 * 3350 / memory * 3600) * 1e6          # decode bound on H100 SXM (3,350 GB/s)
    lora = 160_000 + 0.8 * 6 * 8.03e9 * 2e8 / (989e12 * 0.35 * 3600) * 2.99
    return {"tokens": into + out, "api": api, "own": own, "lora": lora,
            "breakeven": lora / (12 * (api - own) / 1e6)}


def test_support_assistant_api_below_n_tokens_then_lora_8b(capsys, tmp_path):
    hand = _support_by_hand()
    code, out, err = run(capsys, "options", "support-assistant", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    found = {o["id"]: o for o in data["options"]}
    assert data["tokens_per_month"] == pytest.approx(hand["tokens"], rel=1e-12)
    assert found["api"]["serving_per_month"] == pytest.approx(hand["tokens"] / 1e6 * hand["api"], rel=1e-12)
    lora = found["lora_llama_8b"]
    assert (lora["kind"], lora["development"]) == ("lora", pytest.approx(hand["lora"], rel=1e-12))
    assert lora["serving_per_month"] == pytest.approx(hand["tokens"] / 1e6 * hand["own"], rel=1e-12)
    assert lora["breakeven_tokens_per_month"] == pytest.approx(hand["breakeven"], rel=1e-12)
    assert {"finetune_llama_8b", "scratch_llama_8b", "lora_llama_70b", "scratch_llama_70b"} <= set(found)
    assert 4.5e9 < hand["breakeven"] < 4.7e9 and data["cheapest"] == "api"  # 1.84B tokens a month: the API
    code, out, _ = run(capsys, "options", "support-assistant")
    assert "The API below 4.60B tokens a month, then LoRA fine-tune Llama 3.1 8B." in " ".join(out.split())
    # the workbook's formulas (evaluated by `formulas`) agree with the reference, row by row
    evaluated = evaluate_workbook(generate_workbook("support-assistant", tmp_path / "support.xlsx"))
    rows = list(sheet_rows(load_plan("support-assistant")))
    assert {"opt_llama_8b_lora_breakeven_neo_cloud", "opt_llama_70b_scratch_total_neo_cloud"} <= {r[0] for r in rows}
    for name, _key, _market, _label, expected in rows:
        assert evaluated[name] == pytest.approx(expected, rel=1e-9), name


def test_a_plan_without_an_api_price_is_one_line(capsys):
    code, out, err = run(capsys, "options", "pretrain-7b")
    assert code == 2 and "api_price_per_million_tokens" in err and len(err.strip().splitlines()) == 1


@needs_libreoffice
def test_the_options_sheet_is_live_after_an_edited_api_price(capsys, tmp_path):
    # deepseek-v3's API price typed up from $1.10 to $3.00 a million, support-assistant's input price from $2.50
    # to $5.00; LibreOffice recalculates both (one start)
    edits = {"deepseek-v3": ("srv_api_price_per_million_tokens", 3.0, "api_price_per_million_tokens: 1.10",
                             "api_price_per_million_tokens: 3.00"),
             "support-assistant": ("srv_api_input_price_per_million_tokens", 5.0,
                                   "api_input_price_per_million_tokens: 2.50",
                                   "api_input_price_per_million_tokens: 5.00")}
    books = []
    for template, (name, value, _, _) in edits.items():
        wb = openpyxl.load_workbook(generate_workbook(template, tmp_path / f"{template}.xlsx"))
        sheet, ref = next(iter(wb.defined_names[name].destinations))
        wb[sheet][ref.replace("$", "")] = value
        wb.save(edited := tmp_path / f"{template}-edited.xlsx")
        books.append(edited)
    recalculated = dict(zip(edits, map(cell_values, recalculate_many(books, tmp_path / "lo"))))
    for template, (_, _, was, now) in edits.items():
        rows = list(sheet_rows(plan_from_text(template_text(template).replace(was, now))))
        assert {name for name, *_ in rows} >= {"opt_breakeven_" + rows[0][2], "opt_api_total_" + rows[0][2]}
        for name, _key, _market, _label, expected in rows:
            assert recalculated[template][name] == pytest.approx(expected, rel=1e-9), (template, name)
    # by hand: 49,275,779.4 / (12 x (3.00 - 0.3003) / 1e6) = 1.52T tokens a month, down from 5.13T
    assert recalculated["deepseek-v3"]["opt_breakeven_h800_rental"] == pytest.approx(
        49_275_779.4 / (12 * (3.0 - 2 / (1850 * 3600) * 1e6) / 1e6), rel=1e-9)
    # support-assistant: the input price doubled, the LoRA 8B pays off above about half the volume
    assert recalculated["support-assistant"]["opt_llama_8b_lora_breakeven_neo_cloud"] == pytest.approx(
        _support_by_hand(api_in=5.0)["breakeven"], rel=1e-9)
    for book in books:
        code, out, err = run(capsys, "check", book, "--format", "json")
        assert code == 0 and json.loads(out)["ok"], out
