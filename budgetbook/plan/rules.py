"""Cross-field rules of the plan's models, as JSON Schema, beside the validators that enforce them.

A model lists its rules in `SCHEMA_RULES`; `Strict` puts them in the model's schema
as an `allOf` (and closes the object with `additionalProperties: false`). A key
given as `null` counts as not given, as it does for the loader.
"""

from __future__ import annotations

from typing import Any

Rule = dict[str, Any]


def given(key: str) -> Rule:
    """The object has `key`, and not as null."""
    return {"required": [key], "properties": {key: {"not": {"type": "null"}}}}


def _all_given(keys: tuple[str, ...]) -> Rule:
    return given(keys[0]) if len(keys) == 1 else {"allOf": [given(k) for k in keys]}


def _any_given(keys: tuple[str, ...]) -> Rule:
    return given(keys[0]) if len(keys) == 1 else {"anyOf": [given(k) for k in keys]}


def one_way(*ways: tuple[str, ...]) -> list[Rule]:
    """Exactly one way of giving a figure, each way a group of keys given together, never two ways mixed."""
    rules: list[Rule] = [{"oneOf": [_all_given(way) for way in ways]}]
    for way in ways:
        others = tuple(k for other in ways if other is not way for k in other)
        if len(way) > 1 or any(len(other) > 1 for other in ways):
            rules.append({"if": _any_given(way), "then": {"not": _any_given(others)}})
    return rules


def when(condition: Rule, then: Rule, otherwise: Rule | None = None) -> Rule:
    rule = {"if": condition, "then": then}
    return rule | ({"else": otherwise} if otherwise is not None else {})


def not_given(*keys: str) -> Rule:
    return {"not": _any_given(keys)}


ZERO: Rule = {"anyOf": [{"const": 0}, {"type": "object", "properties": {"base": {"const": 0}}}]}
"""A number that is 0 (or a range whose base is 0): what an unpriced key of a hybrid market may hold."""
