"""What `check` reports: findings (kind, severity, where) in the JSON shape DESIGN.md fixes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}

SEVERITY = {
    "hardcoded": ERROR,
    "formula_changed": WARNING,  # a rewritten formula that still agrees is a warning; `mismatch` is the error
    "error_value": ERROR,
    "mismatch": ERROR,
    "missing": ERROR,
    "invalid_input": ERROR,  # outside the hard allowed bounds (what the cell's data validation enforces)
    "outside_range": WARNING,  # outside its own Low-High: a fair edit, read as the range covering it
    "input_changed": INFO,
    "not_computed": WARNING,
    "macros": WARNING,
    "external_links": WARNING,
    "connections": WARNING,
    "hidden": WARNING,
    "sheet_scoped_name": WARNING,
    "checks_failed": ERROR,
    "structure": ERROR,  # a sheet, name or formula cell the embedded plan's layout does not account for
    "user_content": INFO,  # a sheet or formula cell the user added that no formula of budgetbook's reads
    "stale": WARNING,  # a number budgetbook computed (percentiles, Sensitivity) that edited inputs left behind
}
INPUT_PROBLEMS = frozenset({"invalid_input", "missing"})  # input findings that leave no valid plan to compute


@dataclass
class Finding:
    kind: str
    message: str
    sheet: str | None = None
    cell: str | None = None
    name: str | None = None
    expected: Any = None
    actual: Any = None
    severity: str = field(default="")

    def __post_init__(self):
        self.severity = self.severity or SEVERITY[self.kind]

    def as_dict(self) -> dict:
        data = {"kind": self.kind, "severity": self.severity, "sheet": self.sheet, "cell": self.cell,
                "name": self.name, "message": self.message}
        if self.expected is not None or self.actual is not None:
            data["expected"], data["actual"] = self.expected, self.actual
        return data

    @property
    def where(self) -> str:
        place = f"{self.sheet}!{self.cell}" if self.sheet and self.cell else (self.sheet or "")
        return " ".join(p for p in (place, f"({self.name})" if self.name else "") if p)


SHOWN_CHARS = 60  # a value quoted in a message: a 32,767-character cell must not make a 33 KB line


def clipped(value: Any, *, quote: bool = True, limit: int = SHOWN_CHARS) -> str:
    """A value as a one-line message quotes it (repr, or the text itself), cut with an ellipsis and its length."""
    text = repr(value) if quote else str(value)
    text = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return text[:limit - 3] + "..." + size


def jsonable(value: Any) -> Any:
    """A cell's value as a finding's `expected`/`actual`: JSON's scalars as they are, anything else as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
