"""The human title of every plan field: one table for the Inputs sheet's labels and the JSON Schema's titles.

An editor reading the schema (yaml-language-server) shows the same words the workbook's Inputs rows
read ("Model FLOPs utilization (MFU)", not `mfu`); `sheetkit/input_labels.py` builds the rows from it.
"""

from __future__ import annotations

# plan field -> title on the Inputs sheet
TITLES: dict[str, str] = {
    "gpu_prices": "GPU-hour price",
    "storage_per_gb_month": "Storage price",
    "egress_per_gb": "Egress price",
    "extra_engineering_days": "Extra engineering days",
    "runs": "Runs",
    "ideal_gpu_hours": "Ideal GPU-hours per run",
    "allocated_gpu_hours": "Allocated GPU-hours per run (as reported)",
    "utilization": "Utilization multiplier (allocated / ideal hours)",
    "mfu": "Model FLOPs utilization (MFU)",
    "waste": "Waste: failed runs as a share of compute",
    "peak_tflops": "Peak TFLOP/s per GPU (dense BF16)",
    "tokens": "Training tokens",
    "flops_per_param_token": "FLOP per parameter per token",
    "gpus": "GPUs",
    "days": "Days",
    "size_gb": "Checkpoint size (one full save)",
    "bytes_per_param": "Checkpoint bytes per parameter",
    "saves": "Checkpoint saves per run",
    "steps": "Training steps per run",
    "save_every_steps": "Steps between checkpoint saves",
    "retention_months": "Checkpoint retention",
    "moved_share": "Share of checkpoints moved out (egress)",
    "count": "Head count",
    "monthly_cost": "Loaded cost per person-month",
    "engineering_day_cost": "Cost of an engineering day",
    "fallback_price_per_gpu_hour": "Fallback on-demand GPU-hour price",
    "share": "Contingency share",
    "cost": "Cost",
    "quantity": "Quantity",
    "unit_price": "Price per unit",
    "tokens_per_month": "Tokens served per month",
    "requests_per_month": "Requests per month",
    "tokens_per_request": "Tokens per request",
    "tokens_per_second_per_gpu": "Tokens per second per GPU",
    "api_price_per_million_tokens": "API price per million tokens (build vs buy)",
    "api_input_price_per_million_tokens": "API price per million input tokens (build vs buy)",
    "api_output_price_per_million_tokens": "API price per million output tokens (build vs buy)",
    "input_tokens_per_request": "Input (prompt) tokens per request",
    "output_tokens_per_request": "Output (generated) tokens per request",
    "growth": "Growth of requests a month (compounded)",
    "layers": "Layers",
    "kv_heads": "Key-value heads",
    "head_dim": "Head dimension",
    "bytes_per_value": "Bytes per value (weights and KV cache)",
    "context_tokens": "Context length per sequence",
    "concurrent_sequences": "Sequences decoded at once per replica",
    "memory_gb": "GPU memory",
    "memory_gb_per_s": "GPU memory bandwidth (HBM)",
    "start": "Start (months after the plan's start)",
    "months": "Months",
}
# a parent field that changes a title: checkpoints.params is the saved model, flops.params the trained one
NESTED = {("flops", "params"): "Parameters trained", ("checkpoints", "params"): "Parameters saved per checkpoint",
          ("model", "params"): "Parameters of the served model",
          ("cluster", "gpus"): "Cluster GPUs", ("cluster", "days"): "Cluster days"}


def field_title(field: str, parent: str = "") -> str:
    """The title of plan field `field` (inside `parent`, where that changes it): the table's, else its words."""
    return NESTED.get((parent, field)) or TITLES.get(field) or field.replace("_", " ").capitalize()
