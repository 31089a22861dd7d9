"""The plan's JSON Schema is as strict as the loader: closed objects, the cross-field rules, no typo let through.

Each deliberately broken plan below must fail both ways: JSON Schema validation
(what an editor shows while typing) and `show` (one line naming the key, with a
did-you-mean where the loader has one). Valid plans, the templates and random
ones, must pass the schema, so the schema is never stricter than the loader.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
import yaml
from cli_run import run
from hypothesis import HealthCheck, given, settings
from strategies import plan_data

from budgetbook.plan.yamlsafe import parse_yaml_text
from budgetbook.planfile.loader import template_names, template_text
from budgetbook.planfile.schema import plan_schema

SCHEMA = plan_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def template_data(name: str) -> dict[str, Any]:
    return json.loads(json.dumps(parse_yaml_text(template_text(name)), default=str))


def _objects(node: Any, at: str = "#"):
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield at, node
        for key, value in node.items():
            yield from _objects(value, f"{at}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{at}/{i}")


def test_every_object_of_the_schema_is_closed():
    objects = list(_objects(SCHEMA))
    assert len(objects) > 20
    for at, node in objects:
        closed = node.get("additionalProperties")
        if "properties" in node:
            assert closed is False, at  # a record: only its own keys
        else:
            assert isinstance(closed, dict), at  # a map (gpu_prices, hybrid.assign): its values have a schema
    assert SCHEMA["additionalProperties"] is False
    assert set(SCHEMA["$defs"]) >= {"Workload", "Market", "Checkpoints", "Item", "Serving", "Role"}


def test_the_cross_field_rules_are_in_the_schema():
    workload = SCHEMA["$defs"]["Workload"]["allOf"]
    hours, flops_alone = workload[0]["anyOf"]  # one source of hours, or `flops` alone (beside one, it judges)
    assert [way["required"] for way in hours["oneOf"]] == [["ideal_gpu_hours"], ["cluster"], ["allocated_gpu_hours"]]
    assert flops_alone["allOf"][0]["required"] == ["flops"]
    assert SCHEMA["$defs"]["Item"]["allOf"] and SCHEMA["$defs"]["Serving"]["allOf"]
    assert SCHEMA["$defs"]["Market"]["allOf"][0]["if"]["required"] == ["hybrid"]


def test_templates_and_their_nulls_validate():
    for name in template_names():
        data = template_data(name)
        VALIDATOR.validate(data)
    data = template_data("pretrain-7b")
    data["workloads"][1]["mfu"] = None  # null is "not given", for the schema as for the loader
    data["workloads"][0]["checkpoints"]["saves"] = None
    VALIDATOR.validate(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan_data())
def test_random_valid_plans_validate_against_the_schema(data):
    VALIDATOR.validate(json.loads(json.dumps(data, default=str)))


def _set(path: str, value: Any) -> Callable[[dict], None]:
    """Set (or, with value DELETE, remove) the key at a dotted path; `[i]` indexes a list."""
    def change(data: dict) -> None:
        *parents, last = path.replace("[", ".[").split(".")
        node: Any = data
        for part in parents:
            node = node[int(part[1:-1])] if part.startswith("[") else node[part]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    return change


def _rename(path: str, new: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        *parents, last = path.replace("[", ".[").split(".")
        node: Any = data
        for part in parents:
            node = node[int(part[1:-1])] if part.startswith("[") else node[part]
        node[new] = node.pop(last)
    return change


DELETE = object()

# (template, change, what the one-line error must say)
BROKEN = [
    # key typos, at every level
    ("pretrain-7b", _rename("currency", "curency"), ["`curency`", "did you mean `currency`?"]),
    ("pretrain-7b", _rename("markets[0].gpu_prices", "gpu_price"), ["`markets[0].gpu_price`",
                                                                    "did you mean `gpu_prices`?"]),
    ("pretrain-7b", _rename("markets[3].hybrid.assign", "asign"), ["`markets[3].hybrid.asign`",
                                                                   "did you mean `assign`?"]),
    ("pretrain-7b", _rename("workloads[0].mfu", "mfu_"), ["`workloads[0].mfu_`", "did you mean `mfu`?"]),
    ("pretrain-7b", _rename("workloads[0].flops.tokens", "token"), ["`workloads[0].flops.token`",
                                                                    "did you mean `tokens`?"]),
    ("pretrain-7b", _rename("workloads[0].checkpoints.save_every_steps", "save_every_step"),
     ["`workloads[0].checkpoints.save_every_step`", "did you mean `save_every_steps`?"]),
    ("pretrain-7b", _rename("workloads[0].mfu.low", "lo"), ["`workloads[0].mfu`", "did you mean `low`?"]),
    ("pretrain-7b", _rename("commitments[0].term_months", "term_month"), ["`commitments[0].term_month`",
                                                                          "did you mean `term_months`?"]),
    ("pretrain-7b", _rename("people.roles", "role"), ["`people.role`", "did you mean `roles`?"]),
    ("pretrain-7b", _rename("people.roles[0].monthly_cost", "monthly_costs"),
     ["`people.roles[0].monthly_costs`", "did you mean `monthly_cost`?"]),
    ("deepseek-v3", _rename("items[0].cost", "costs"), ["`items[0].costs`", "did you mean `cost`?"]),
    ("deepseek-v3", _rename("serving.months", "month"), ["`serving.month`", "did you mean `months`?"]),
    ("lab-year", _set("contingency", {"shar": 0.1}), ["`contingency.shar`", "did you mean `share`?"]),
    ("pretrain-7b", _set("workloads[1].colour", "red"),
     ["`workloads[1].colour`", "unknown key"]),
    # wrong types
    ("pretrain-7b", _set("markets", {"id": "x"}), ["`markets`", "expected a list"]),
    ("pretrain-7b", _set("workloads[0].gpu", 100), ["`workloads[0].gpu`", "expected text"]),
    ("pretrain-7b", _set("workloads[0].final_run", "maybe"), ["`workloads[0].final_run`", "true or false"]),
    ("pretrain-7b", _set("workloads[0].waste", "lots"), ["`workloads[0].waste`", "expected a number"]),
    ("pretrain-7b", _set("workloads[0].kind", "pretraining"), ["`workloads[0].kind`", "did you mean `pretrain`?"]),
    ("pretrain-7b", _set("markets[0].storage_per_gb_month", -1), ["`markets[0].storage_per_gb_month`",
                                                                  "at least 0"]),
    ("pretrain-7b", _set("people", [1, 2]), ["`people`", "expected a mapping"]),
    ("pretrain-7b", _set("currency", "usd"), ["`currency`", "three-letter"]),
    # cross-field rules
    ("pretrain-7b", _set("workloads[1].ideal_gpu_hours", 100), ["give exactly one of", "`ideal_gpu_hours`"]),
    ("pretrain-7b", _set("workloads[0].flops", DELETE), ["give exactly one of", "the hours"]),
    ("pretrain-7b", _set("workloads[1].mfu", 0.4), ["`mfu` does not apply"]),
    ("pretrain-7b", _set("workloads[0].utilization", 1.5), ["one of `utilization` or `mfu`", "not both"]),
    ("pretrain-7b", _set("workloads[0].checkpoints.saves", 10), ["`saves`", "not both"]),
    ("pretrain-7b", _set("workloads[0].checkpoints.size_gb", 84), ["give exactly one of", "`size_gb`"]),
    ("pretrain-7b", _set("markets[3].gpu_prices", {"H100_SXM": 2}), ["hybrid market"]),
    ("pretrain-7b", _set("workloads[0].gpu", "H100_SXMM"), ["`H100_SXMM`", "did you mean `H100_SXM`?"]),
    ("deepseek-v3", _set("items[0].quantity", 3), ["`cost`, or `quantity` and `unit_price`"]),
    ("deepseek-v3", _set("serving.requests_per_month", 1e6), ["`tokens_per_month`"]),
]


def _broken(template: str, change: Callable[[dict], None]) -> dict:
    data = copy.deepcopy(template_data(template))
    change(data)
    return data


@pytest.mark.parametrize(("template", "change", "said"), BROKEN,
                         ids=[f"{i}-{said[0]}" for i, (_, _, said) in enumerate(BROKEN)])
def test_a_broken_plan_fails_the_schema_and_show_names_the_key(tmp_path, capsys, template, change, said):
    data = _broken(template, change)
    assert not VALIDATOR.is_valid(data), "the schema lets this broken plan through"
    plan = tmp_path / "plan.yaml"
    plan.write_text(yaml.safe_dump(data, sort_keys=False))
    code, out, err = run(capsys, "show", plan)
    assert code == 2 and out == ""
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    for words in said:
        assert words in err, err
