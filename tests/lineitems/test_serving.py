"""Serving: tokens per month / tokens per second per GPU / 3600 x months x price; and the API price beside it.

The tokens per second per GPU measured, or bounded from a published model shape (Llama 3.1) and the
GPU's HBM bandwidth: the KV cache, memory and GPUs per replica against a hand computation.
"""

import pytest
from lineitem_case import assert_figures, plan_yaml

from budgetbook.errors import PlanError
from budgetbook.physics.model import physics_rows
from budgetbook.planfile.loader import plan_from_text
from budgetbook.reference import compute_breakdown
from budgetbook.workbook.write import write_workbook
from budgetbook.xlsx.evaluate import evaluate_workbook


def test_own_gpus_and_api(tmp_path):
    # 3.6e9 tokens a month / 1,000 tokens/s / 3,600 = 1,000 GPU-hours a month, x 2 months x $3
    serving = {"gpu": "H100_SXM", "tokens_per_month": 3.6e9, "tokens_per_second_per_gpu": 1000, "months": 2,
               "api_price_per_million_tokens": 1.0}
    figures = assert_figures(tmp_path, plan_yaml(serving=serving), {
        "serving_a": 6000, "serving_b": 4000,
        "serving_api_a": 3.6e9 * 2 / 1e6 * 1.0})   # the same tokens bought at $1 per million
    assert figures["total_a"] == 4500  # compute only: serving is never inside the total


# Llama 3.1's shapes, from its config.json on Hugging Face (meta-llama/Llama-3.1-8B and -70B, read 2026-12-02):
# num_hidden_layers 32 / 80, num_key_value_heads 8, hidden_size / num_attention_heads = 4096 / 32 = 8192 / 64
# = 128, torch_dtype bfloat16 (2 bytes); parameters 8.03B and 70.6B (the model cards)
LLAMA_8B = {"name": "Llama 3.1 8B", "params": 8.03e9, "layers": 32, "kv_heads": 8, "head_dim": 128,
            "bytes_per_value": 2}
LLAMA_70B = LLAMA_8B | {"name": "Llama 3.1 70B", "params": 70.6e9, "layers": 80}


def test_kv_cache_memory_and_decode_bound_of_llama_on_h100(tmp_path):
    serving = {"gpu": "H100_SXM", "tokens_per_month": 1e10, "months": 12, "model": LLAMA_8B,
               "context_tokens": 8192, "concurrent_sequences": 32}
    kv = 2 * 32 * 8 * 128 * 2                       # 131,072 bytes per token
    memory = 8.03e9 * 2 / 1e9 + kv * 8192 * 32 / 1e9  # 16.06 GB of weights + 34.36 GB of cache = 50.42 GB
    speed = 32 * 3350 / memory                      # H100 SXM: 3,350 GB/s -> 2,126 tokens/s per GPU
    hours = 1e10 / speed / 3600
    expected = {"svc_kv_bytes_a": 131_072, "svc_memory_gb_a": memory, "svc_gpus_per_replica_a": 1,
                "svc_decode_a": speed, "svc_speed_a": speed, "svc_gpu_hours_a": hours,
                "svc_per_million_a": 3 / (speed * 3600) * 1e6, "serving_a": hours * 12 * 3}
    assert round(memory, 2) == 50.42 and round(speed) == 2126
    plan = plan_from_text(plan_yaml(serving=serving))
    reference = {f.name: f.value for f in compute_breakdown(plan).figures}
    rows = {name: value for name, _, _, _, value in physics_rows(plan)}
    book = tmp_path / "llama.xlsx"
    write_workbook(plan, plan_yaml(serving=serving), book)
    evaluated = evaluate_workbook(book)
    for name, value in expected.items():
        got = reference[name] if name.startswith("serving") else rows[name]
        assert abs(got - value) <= 1e-9 * value, (name, got)
        assert abs(evaluated[name] - value) <= 1e-9 * value, (name, evaluated[name])
    # 70B: 141.2 GB of weights + 327,680 bytes a token x 8192 x 32 = 85.9 GB of cache: 227.1 GB, 3 GPUs of 80 GB
    bigger = plan_from_text(plan_yaml(serving=serving | {"model": LLAMA_70B}))
    rows = {name: value for name, _, _, _, value in physics_rows(bigger)}
    assert rows["svc_kv_bytes_a"] == 327_680 and rows["svc_gpus_per_replica_a"] == 3
    # a measured throughput overrides the bound
    measured = plan_from_text(plan_yaml(serving=serving | {"tokens_per_second_per_gpu": 1000}))
    assert compute_breakdown(measured).value("serving_a") == 1e10 / 1000 / 3600 * 12 * 3


def test_serving_physics_keys_need_a_model():

    with pytest.raises(PlanError, match="`context_tokens` applies with `model`"):
        plan_from_text(plan_yaml(serving={"gpu": "H100_SXM", "tokens_per_month": 1, "months": 1,
                                          "tokens_per_second_per_gpu": 10, "context_tokens": 10}))
    with pytest.raises(PlanError, match="give `concurrent_sequences` with `model`"):
        plan_from_text(plan_yaml(serving={"gpu": "H100_SXM", "tokens_per_month": 1, "months": 1,
                                          "model": LLAMA_8B, "context_tokens": 10}))
