"""A closed JSON Schema (draft 2020-12) for each command's `--format json`: `budgetbook schema --output COMMAND`.

Closed: every object lists its keys (`additionalProperties: false`), so a key a command adds without
its entry here fails `tests/output/test_json_schemas.py`, which validates every command's JSON over
the templates, the samples and random plans (and `tests/cli_run.run` validates every JSON any test
prints). A mapping keyed by a market (or a bill's category) says what each value holds.

Adding a key to a command's JSON: add it to that command's entry in `COMMANDS` below (`required`
when every run prints it, `optional` otherwise); a new command adds its own entry. The envelope's
keys (`output.envelope`) are added to every entry by `report`.
"""

from __future__ import annotations

from typing import Any

from .. import __version__

Schema = dict[str, Any]

NUMBER: Schema = {"type": "number"}
INTEGER: Schema = {"type": "integer"}
STRING: Schema = {"type": "string"}
BOOLEAN: Schema = {"type": "boolean"}
SCALAR: Schema = {"type": ["number", "string", "boolean", "null"]}
ANY: Schema = {}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def mapping(values: Schema) -> Schema:
    """An object keyed by ids (markets, categories): any key, each value `values`."""
    return {"type": "object", "additionalProperties": values}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    """A closed object: `required` keys always there, `optional` ones sometimes, no other."""
    return {"type": "object", "properties": required | (optional or {}), "required": list(required),
            "additionalProperties": False}


NUMBER_OR_RANGE = {"anyOf": [NUMBER, obj({"low": NUMBER, "base": NUMBER, "high": NUMBER})]}
FINDING = {"kind": STRING, "severity": {"enum": ["error", "warning", "info"]}, "sheet": nullable(STRING),
           "cell": nullable(STRING), "name": nullable(STRING), "message": STRING}
# what a cell held and what was expected: a number, a text, a formula, a range's [low, base, high], ...
FINDING_VALUES = {"expected": ANY, "actual": ANY}
SANITY = obj({"key": STRING, "message": STRING})  # a plan's warning or note
UNMAPPED = array(obj({"what": STRING, "amount": NUMBER, "rows": INTEGER}))

# --- show: the figures, or (`--by month`) the months ------------------------------------------

SHOW = {
    "required": {"plan": STRING, "currency": STRING, "markets": array(STRING),
                 "figures": array(obj({"name": STRING, "item": STRING, "market": STRING, "label": STRING,
                                       "value": NUMBER}, {"low": NUMBER, "high": NUMBER})),
                 "workloads": array(obj({
                     "market": STRING, "workload": STRING, "gpu": STRING, "precision": STRING,
                     "peak_tflops": NUMBER, "runs": NUMBER, "flop_per_run": nullable(NUMBER),
                     "flops_gpu_hours_per_run": nullable(NUMBER), "ideal_gpu_hours_per_run": nullable(NUMBER),
                     "allocated_gpu_hours_per_run": NUMBER, "ideal_gpu_hours": nullable(NUMBER),
                     "allocated_gpu_hours": NUMBER, "utilization": nullable(NUMBER), "mfu": nullable(NUMBER),
                     "mfu_source": nullable(STRING), "gpus": nullable(NUMBER), "days_per_run": nullable(NUMBER),
                     "deadline_days": nullable(NUMBER), "gpus_for_deadline": nullable(NUMBER),
                     "mfu_note": nullable(STRING)})),
                 "warnings": array(SANITY), "notes": array(SANITY)},
    # with a `serving` section: per market, its physics (those of a served model only with one) and price
    # with an owned market: per owned market, its expense by part and its answers (`reference.ownership`)
    "optional": {"workbook": STRING,
                 # two markets or more: the gap to the cheapest by category (`lineitems/gap.py`), base case
                 "gap": obj({"cheapest": STRING, "categories": array(STRING),
                             "by_market": mapping(obj({"gpu_price": NUMBER, "utilization": NUMBER, "goodput": NUMBER,
                                                       "failed_runs": NUMBER, "overheads": NUMBER,
                                                       "verification": NUMBER, "storage_egress": NUMBER,
                                                       "people": NUMBER, "total": NUMBER}))}),
                 "ownership": array(obj({
                     "market": STRING, "purchase": NUMBER, "depreciation": NUMBER, "energy": NUMBER,
                     "facility": NUMBER, "maintenance": NUMBER, "financing": NUMBER, "overflow": NUMBER,
                     "book_value_at_end": NUMBER, "cost_per_gpu_hour": nullable(NUMBER),
                     "utilization": nullable(NUMBER), "breakeven_utilization": mapping(nullable(NUMBER))})),
                 "serving": array(obj({"market": STRING, "tokens_per_second_per_gpu": NUMBER,
                                       "gpu_hours_per_month": NUMBER, "cost_per_million_tokens": NUMBER},
                                      {"kv_bytes_per_token": NUMBER, "weights_gb": NUMBER, "kv_cache_gb": NUMBER,
                                       "memory_per_replica_gb": NUMBER, "gpus_per_replica": INTEGER,
                                       "decode_tokens_per_second_per_gpu": NUMBER}))},
}
SHOW_MONTHS = {
    "required": {"plan": STRING, "currency": STRING, "markets": array(STRING), "months": array(STRING),
                 "rows": array(obj({"market": STRING, "item": STRING, "label": STRING, "values": array(NUMBER),
                                    "total": NUMBER})),
                 "cumulative": array(obj({"market": STRING, "values": array(NUMBER)}))},
    "optional": {"workbook": STRING, "view": {"enum": ["expense", "cash"]}},
}

# --- check, diff -------------------------------------------------------------------------------

CHECK = {
    "required": {"ok": BOOLEAN, "workbook": STRING,
                 "findings": array(obj(FINDING, FINDING_VALUES)),
                 "figures": array(obj({"name": STRING, "item": STRING, "market": STRING,
                                       "value": nullable(SCALAR), "reference": nullable(NUMBER)},
                                      {"difference": nullable(NUMBER)}))},
    "optional": {"plan": STRING, "currency": STRING},
}
SIDE = obj({"spec": STRING, "kind": STRING, "plan": STRING, "currency": STRING})
CHANGE = {"old": nullable(NUMBER), "new": nullable(NUMBER), "delta": NUMBER, "pct": nullable(NUMBER)}
DIFF = {
    "required": {"plan": STRING, "currency": STRING, "old": SIDE, "new": SIDE,
                 "inputs": array(obj({"key": STRING, "change": STRING, "label": STRING,
                                      "old": nullable(NUMBER_OR_RANGE), "new": nullable(NUMBER_OR_RANGE),
                                      "note": STRING})),
                 "structure": array(obj({"kind": STRING, "key": STRING, "change": STRING, "old": ANY, "new": ANY})),
                 "figures": array(obj({"name": STRING, "item": STRING, "market": STRING, "label": STRING} | CHANGE)),
                 "total": mapping(obj(CHANGE)),
                 "audit": array(obj({"side": {"enum": ["old", "new"]}} | FINDING, FINDING_VALUES))},
    "optional": {"fail_above": obj({"limit": NUMBER, "percent": BOOLEAN, "over": array(STRING)})},
}

# --- bills: actuals, variance ---------------------------------------------------------------------

ACTUALS = {
    "required": {"workbook": STRING,
                 "imported": array(obj({"key": STRING, "source": STRING, "format": STRING, "cost_column": STRING,
                                        "rows": INTEGER, "total": NUMBER, "unmapped": NUMBER, "replaces": BOOLEAN,
                                        "categories": mapping(NUMBER)},
                                       {"replaced_total": NUMBER, "replaced_source": STRING})),
                 "unmapped": UNMAPPED, "warnings": array(STRING), "notes": array(STRING)},
    "optional": {"plan": STRING, "currency": STRING},
}
VARIANCE_TOTALS = {key: NUMBER for key in ("actual", "variance", "variance_pct", "forecast", "at_completion")}
VARIANCE = {
    "required": {"plan": STRING, "currency": STRING, "months": array(STRING), "months_billed": INTEGER,
                 # a plan-only line (no bill is held against it alone) has only its plan's figures
                 "lines": array(obj({"market": STRING, "item": STRING, "label": STRING, "plan_only": BOOLEAN,
                                     "plan": NUMBER, "plan_to_date": NUMBER,
                                     "months": obj({"plan": array(NUMBER)},
                                                   {"actual": array(NUMBER), "variance": array(NUMBER)})},
                                    VARIANCE_TOTALS)),
                 "price_per_gpu_hour": mapping(NUMBER), "planned_price_per_gpu_hour": mapping(NUMBER),
                 "gpu_hours": mapping(obj({"planned": NUMBER, "planned_to_date": NUMBER, "billed": NUMBER})),
                 "unmapped": UNMAPPED, "unmapped_total": NUMBER, "threshold_pct": NUMBER,
                 "over": array(obj({"market": STRING, "item": STRING}))},
    "optional": {"workbook": STRING},
}
RANGE_OF = obj({"was": NUMBER, "now": NUMBER})
REFORECAST = {
    "required": {"workbook": STRING, "plan": STRING, "currency": STRING, "froze": BOOLEAN,
                 "baseline": obj({"frozen": STRING, "plan": STRING, "digest": STRING, "reforecasts": array(STRING),
                                  "totals": mapping(NUMBER)})},
    # --from-actuals: what the bills said (per market, the price paid and planned) and each input re-estimated
    "optional": {"from_actuals": obj({
        "price_per_gpu_hour": mapping(obj({"paid": NUMBER, "planned": NUMBER})),
        "gpu_hours": obj({"billed": NUMBER, "planned_to_date": NUMBER, "ratio": nullable(NUMBER)}),
        "inputs": mapping(RANGE_OF)})},
}

# --- physics: gpus, calibrate; ranges: sensitivity, simulate --------------------------------------

GPUS = {
    "required": {"gpus": array(obj({"id": STRING, "name": STRING, "dense_bf16_tflops": NUMBER,
                                    "dense_fp8_tflops": nullable(NUMBER), "memory_gb": NUMBER,
                                    "aliases": array(STRING), "source": STRING, "as_of": STRING,
                                    "memory_gb_per_s": NUMBER, "bandwidth_source": STRING,
                                    "tdp_w": nullable(NUMBER)}))},
}
CALIBRATE = {
    "required": {"plan": STRING,
                 "evidence": obj({"runs": INTEGER, "mfu_min": NUMBER, "mfu_median": NUMBER, "mfu_max": NUMBER,
                                  "mfu_p10": NUMBER, "mfu_p90": NUMBER}),
                 "workloads": array(obj({"workload": STRING, "gpu": STRING, "precision": STRING,
                                         "mfu": nullable(NUMBER), "mfu_bf16": nullable(NUMBER),
                                         "mfu_source": nullable(STRING), "utilization": nullable(NUMBER),
                                         "percentile": nullable(NUMBER), "verdict": STRING,
                                         "without": nullable(STRING), "mfu_note": nullable(STRING)})),
                 "published_runs": array(obj({"id": STRING, "model": STRING, "params": NUMBER,
                                              "active_params": NUMBER, "tokens": NUMBER, "gpu": STRING,
                                              "precision": STRING, "gpu_hours": NUMBER,
                                              "cluster_gpus": nullable(NUMBER), "cluster_days": nullable(NUMBER),
                                              "flop": NUMBER, "mfu": NUMBER, "source": STRING, "date": STRING}))},
    "optional": {"currency": STRING},
}
SENSITIVITY = {
    "required": {"plan": STRING, "currency": STRING, "market": STRING, "base": NUMBER,
                 "inputs": array(obj({"input": STRING, "name": STRING, "label": STRING, "low": NUMBER,
                                      "high": NUMBER, "low_total": NUMBER, "high_total": NUMBER,
                                      "swing": NUMBER}))},
}
SIMULATE = {
    "required": {"plan": STRING, "currency": STRING, "samples": INTEGER, "seed": INTEGER, "distribution": STRING,
                 "markets": mapping(obj({"p10": NUMBER, "p50": NUMBER, "p90": NUMBER, "mean": NUMBER,
                                         "cheaper": mapping(NUMBER), "cheapest": NUMBER}))},
}

# --- planning: fit ----------------------------------------------------------------------------------

FIT = {
    "required": {"plan": STRING, "currency": STRING, "market": STRING, "workload": STRING,
                 "solve": {"enum": ["tokens", "params", "gpus", "days", "runs"]}, "input": STRING, "name": STRING,
                 "value": NUMBER, "was": NUMBER, "budget": NUMBER, "total": NUMBER, "was_total": NUMBER,
                 "fixed": NUMBER, "binds": STRING, "reason": STRING, "method": STRING,
                 "tokens_per_param": nullable(NUMBER), "follows": mapping(NUMBER),
                 "breakdown": array(obj({"item": STRING, "label": STRING, "value": NUMBER})),
                 "days_per_run": nullable(NUMBER), "gpus": nullable(NUMBER), "deadline_days": nullable(NUMBER),
                 "gpus_for_deadline": nullable(NUMBER)},
}

OPTIONS = {
    "required": {"plan": STRING, "currency": STRING, "tokens_per_month": NUMBER, "months": NUMBER,
                 "cheapest": STRING,
                 "options": array(obj({"id": STRING, "kind": STRING, "label": STRING, "development": NUMBER,
                                       "serving_per_month": NUMBER, "total": NUMBER,
                                       "breakeven_tokens_per_month": nullable(NUMBER)}))},
}

# command -> its report's keys (or, for `show`, the two shapes it prints); `report` adds the envelope
COMMANDS: dict[str, dict[str, dict[str, Schema]] | list[dict[str, dict[str, Schema]]]] = {
    "show": [SHOW, SHOW_MONTHS], "check": CHECK, "diff": DIFF, "actuals": ACTUALS, "variance": VARIANCE,
    "reforecast": REFORECAST,
    "gpus": GPUS, "calibrate": CALIBRATE, "sensitivity": SENSITIVITY, "simulate": SIMULATE, "fit": FIT,
    "options": OPTIONS,
}


def _closed(command: str, keys: dict[str, dict[str, Schema]]) -> Schema:
    head = {"command": {"const": command}, "version": STRING}
    return obj(head | keys["required"], keys.get("optional"))


def report(command: str) -> Schema:
    """The closed JSON Schema of `command`'s `--format json` (a `KeyError` for a command without one)."""
    keys = COMMANDS[command]
    body = {"oneOf": [_closed(command, k) for k in keys]} if isinstance(keys, list) else _closed(command, keys)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"budgetbook {command} --format json",
            "description": f"The JSON report of `budgetbook {command}` (budgetbook {__version__}).", **body}
