"""The random plans (`tests/strategies.py`) draw every field of the plan model, sections included.

The walk reads the full plan model (the core and every line item's section, from the registry),
so a field or section added later is held to it without a list here. A section's static `examples`
do not count: they are switched off while the plans are drawn, so the agreement tests price every
input a strategy draws, not the few values a module happens to give as examples.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
import strategies
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from budgetbook.lineitems.registry import LINE_ITEMS
from budgetbook.plan.numbers import Num
from budgetbook.planfile.model import PLAN_MODEL

DRAWS = 500  # plans drawn, once for the module (no workbook is written)


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models a field holds: itself, in a list, in a map, or in a union with None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _holds(annotation: Any, origin: type) -> bool:
    return typing.get_origin(annotation) is origin or any(_holds(a, origin) for a in typing.get_args(annotation))


def model_fields(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Every field path of a model (`workloads[].checkpoints.size_gb`), at any depth."""
    found: set[str] = set()
    for name, field in model.model_fields.items():
        path = prefix + name
        found.add(path)
        inner = path + ("[]" if _holds(field.annotation, list) else "")
        for sub in _models(field.annotation):
            found |= model_fields(sub, inner + ".")
    return found


def drawn_fields(model: type[BaseModel], data: dict, prefix: str = "") -> set[str]:
    """The field paths one plan's data gives a value to (None is not a value)."""
    found: set[str] = set()
    for name, field in model.model_fields.items():
        value = data.get(name)
        if value is None:
            continue
        path = prefix + name
        found.add(path)
        subs = _models(field.annotation)
        if subs and not _holds(field.annotation, dict):
            inner = path + ("[]" if isinstance(value, list) else "")
            for entry in value if isinstance(value, list) else [value]:
                if isinstance(entry, dict):
                    found |= drawn_fields(subs[0], entry, inner + ".")
    return found


def ranged_fields(model: type[BaseModel], data: dict, prefix: str = "") -> set[str]:
    """The number fields one plan's data gives as a {low, base, high} range."""
    found: set[str] = set()
    for name, field in model.model_fields.items():
        value = data.get(name)
        path = prefix + name
        if isinstance(value, dict) and set(value) == {"low", "base", "high"}:
            found.add(path)
        subs = [m for m in _models(field.annotation) if m is not Num]
        if subs and value is not None and not _holds(field.annotation, dict):
            inner = path + ("[]" if isinstance(value, list) else "")
            for entry in value if isinstance(value, list) else [value]:
                if isinstance(entry, dict):
                    found |= ranged_fields(subs[0], entry, inner + ".")
    return found


def _number_fields(model: type[BaseModel], prefix: str = "") -> set[str]:
    found: set[str] = set()
    for name, field in model.model_fields.items():
        path = prefix + name
        if "Num" in str(field.annotation) and not _models(field.annotation) and not _holds(field.annotation, dict):
            found.add(path)
        inner = path + ("[]" if _holds(field.annotation, list) else "")
        for sub in _models(field.annotation):
            found |= _number_fields(sub, inner + ".")
    return found


def collect_draws() -> tuple[set[str], set[str]]:
    """(fields drawn, number fields drawn as ranges) over many random plans, no section's examples used."""
    seen: set[str] = set()
    ranged: set[str] = set()

    @settings(max_examples=DRAWS, database=None, derandomize=True, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategies.plan_data())
    def collect(data):
        seen.update(drawn_fields(PLAN_MODEL, data))
        ranged.update(ranged_fields(PLAN_MODEL, data))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strategies, "from_examples", lambda section: st.none())
        collect()
    return seen, ranged


@pytest.fixture(scope="module")
def drawn() -> tuple[set[str], set[str]]:
    """`collect_draws` in a fresh interpreter: its draws are derandomized, yet in a pytest-xdist worker that
    had run other tests they came out different (a rare owned market's key never ranged, 2026-12-07; the
    worker state behind it not found). A fresh process draws the same plans on every run and machine."""
    here = Path(__file__).parent
    code = ("import json, test_random_plans_cover_the_model as t; seen, ranged = t.collect_draws(); "
            "print(json.dumps([sorted(seen), sorted(ranged)]))")
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(here.parent), str(here),
                                                       os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen, ranged = json.loads(done.stdout.strip().splitlines()[-1])
    return set(seen), set(ranged)


def test_the_walk_sees_nested_sections_lists_and_maps():
    fields = model_fields(PLAN_MODEL)
    assert {"workloads[].checkpoints.size_gb", "markets[].hybrid.assign", "markets[].gpu_prices",
            "people.roles[].monthly_cost", "items[].unit_price", "commitments[].term_months",
            "contingency.share", "serving.api_price_per_million_tokens"} <= fields
    assert {li.section.key for li in LINE_ITEMS if li.section} <= fields
    assert drawn_fields(PLAN_MODEL, {"workloads": [{"id": "w", "checkpoints": {"saves": 3}}],
                                     "markets": [{"gpu_prices": {"H100": 2}, "hybrid": None}]}) == {
        "workloads", "workloads[].id", "workloads[].checkpoints", "workloads[].checkpoints.saves",
        "markets", "markets[].gpu_prices"}


def test_every_section_has_a_strategy_of_its_own():
    sections = {li.section.key for li in LINE_ITEMS if li.section}
    missing = sections - set(strategies.SECTION_STRATEGIES)
    assert not missing, f"write a strategy for {sorted(missing)} in tests/strategies.py (SECTION_STRATEGIES)"
    assert set(strategies.SECTION_STRATEGIES) <= sections


def test_every_field_of_every_section_is_drawn(drawn):
    seen, _ = drawn
    never = sorted(model_fields(PLAN_MODEL) - seen)
    assert not never, f"tests/strategies.py never draws {never}: draw them in its strategies"


def test_every_number_is_drawn_as_a_range_too(drawn):
    _, ranged = drawn
    never = sorted(_number_fields(PLAN_MODEL) - ranged)
    assert not never, f"tests/strategies.py never draws {never} as a {{low, base, high}} range"
