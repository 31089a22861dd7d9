"""The committed sample workbooks are what the builder makes today (rerun samples/regenerate.py if not)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

from budgetbook.planfile.loader import template_names

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
_spec = importlib.util.spec_from_file_location("regenerate", SAMPLES / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)


@pytest.mark.parametrize("template", template_names())
def test_sample_matches_builder(template, tmp_path):
    committed = SAMPLES / f"{template}.xlsx"
    if not committed.exists():
        pytest.fail(f"no sample for template `{template}`: run `python samples/regenerate.py`")
    fresh = regenerate.generate(template, tmp_path)
    old, new = regenerate.dump(committed), regenerate.dump(fresh)
    if old != new:
        diff = "\n".join(list(difflib.unified_diff(old, new, "samples", "builder", lineterm="", n=1))[:80])
        pytest.fail(f"samples/{template}.xlsx is stale (run `python samples/regenerate.py`):\n{diff}")


def test_actuals_sample_matches_a_fresh_import(tmp_path):
    committed = SAMPLES / "pretrain-7b-actuals.xlsx"
    fresh = regenerate.generate_actuals(tmp_path)
    old, new = regenerate.dump(committed), regenerate.dump(fresh)
    if old != new:
        diff = "\n".join(list(difflib.unified_diff(old, new, "samples", "builder", lineterm="", n=1))[:80])
        pytest.fail(f"samples/pretrain-7b-actuals.xlsx is stale (run `python samples/regenerate.py`):\n{diff}")
    assert any(line.startswith("Variance!") for line in new) and any(line.startswith("Actuals!") for line in new)
