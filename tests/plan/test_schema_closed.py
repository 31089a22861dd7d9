"""The schema is closed (issue 14, item 9): every object says `additionalProperties: false`, so an
editor flags a mistyped key wherever the loader would refuse it."""

from __future__ import annotations

import copy
import json

import pytest

from budgetbook.errors import PlanError
from budgetbook.plan.yamlsafe import parse_yaml_text
from budgetbook.planfile.loader import plan_from_data, template_names, template_text
from budgetbook.planfile.schema import plan_schema

jsonschema = pytest.importorskip("jsonschema")


def _mappings(node, path=()):
    """Every mapping of a plan's data (a range {low, base, high} too), with its path."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _mappings(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _mappings(value, path + (i,))


# that every object is closed: tests/plan/test_schema_strict.py (it tells records from the cross-field rules)


@pytest.mark.parametrize("template", template_names())
def test_a_mistyped_key_anywhere_fails_the_schema_as_it_fails_the_loader(template):
    data = json.loads(json.dumps(parse_yaml_text(template_text(template)), default=str))
    validator = jsonschema.Draft202012Validator(plan_schema())
    assert list(validator.iter_errors(data)) == []
    # maps keyed by GPU or workload id take any key: every other mapping is closed
    places = [path for path, node in _mappings(data) if path[-1:] not in (("gpu_prices",), ("runs",), ("assign",))]
    assert len(places) > 10
    for path in places:
        broken = copy.deepcopy(data)
        node = broken
        for part in path:
            node = node[part]
        node["typo_key"] = 1
        assert list(validator.iter_errors(broken)), f"{template}: the schema takes `typo_key` at {path}"
        with pytest.raises(PlanError):
            plan_from_data(broken, "broken.yaml")
