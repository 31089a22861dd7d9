"""The plan's JSON Schema, for editors (yaml-language-server) and for the README's key reference.

Generated from the pydantic model so it cannot drift from what `load_plan`
accepts; every numeric key's description carries its unit and allowed range, and its title is the
one the workbook's Inputs row reads (`plan.titles`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import __version__
from ..plan.titles import field_title
from .model import PLAN_MODEL

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def plan_schema() -> dict[str, Any]:
    schema = PLAN_MODEL.model_json_schema()
    return {
        "$schema": DRAFT,
        "$id": f"https://budgetbook.invalid/plan-{__version__}.schema.json",
        "title": "budgetbook plan",
        "description": ("An ML training budget for budgetbook: markets, workloads, people and further "
                        "line items. Numbers are one value or a range {low, base, high}."),
        **{k: v for k, v in close_objects(titled(schema)) if k not in ("title", "description")},
    }


def titled(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each plan field's title the human one the workbook's Inputs rows read (`plan.titles`),
    in place of pydantic's `Peak Tflops`; a field whose title depends on its parent (`flops.params`,
    "Parameters trained") gets it in the definition that parent refers to."""
    defs = schema.get("$defs", {})
    parents: dict[str, str] = {}  # definition name -> the field that holds it
    for node in [schema, *defs.values()]:
        for field, sub in node.get("properties", {}).items():
            for ref in _refs(sub):
                parents.setdefault(ref.rsplit("/", 1)[-1], field)
    for name, node in [("", schema), *defs.items()]:
        for field, sub in node.get("properties", {}).items():
            sub["title"] = field_title(field, parents.get(name, ""))
    return schema


def _refs(node: Any) -> Iterator[str]:
    for mapping in _mappings(node):
        if isinstance(mapping.get("$ref"), str):
            yield mapping["$ref"]


def close_objects(schema: dict[str, Any]) -> Any:
    """(key, value) pairs of `schema` with every object that lists its keys closed to others.

    `Strict` models close their own objects (`additionalProperties: false`, as the
    loader refuses an unknown key); this is the net for a section model that does not
    derive from it, so the schema an editor reads never accepts a key typo.
    """
    for node in _mappings(schema):
        if isinstance(node.get("properties"), dict) and node.get("type") == "object":
            node.setdefault("additionalProperties", False)
    return schema.items()


def plan_keys(schema: dict[str, Any] | None = None) -> set[str]:
    """Every key name a plan may use, at any depth (for the README's key reference test)."""
    schema = schema or plan_schema()
    keys: set[str] = set()
    for node in _mappings(schema):
        keys.update(node.get("properties", {}) if isinstance(node.get("properties"), dict) else ())
    return keys - {"low", "base", "high"}


def _mappings(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping in a schema, depth first (subschemas of rules too)."""
    if isinstance(node, dict):
        yield node
        for value in list(node.values()):
            yield from _mappings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _mappings(value)
