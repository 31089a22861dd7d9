"""`variance --threshold` (issue 27 item 9): NaN is refused for what it is, not as "less than or equal to 1e6".

click's range check compares NaN and fails the upper bound, so `--threshold nan` was told it was too
large; now each bad value gets its own reason, exit 2, one line, before the workbook is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "pretrain-7b-actuals.xlsx"


@pytest.mark.parametrize(("value", "reason"), [
    ("nan", "must be a finite number, got nan"),
    ("inf", "must be a finite number, got inf"),
    ("-1", "must be at least 0, got -1"),
    ("2e6", "must be at most 1e6 (a percentage), got 2e+06"),
])
def test_a_bad_threshold_gets_its_own_reason(capsys, value, reason):
    code, out, err = run(capsys, "variance", SAMPLE, "--threshold", value)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1, err
    assert err.startswith(f"Error: Invalid value for '--threshold': {reason} (see `"), err


def test_a_fair_threshold_still_works(capsys):
    code, _, err = run(capsys, "variance", SAMPLE, "--threshold", "1e6", "--format", "json")
    assert code == 0, err
