"""The generation stamp beside the embedded plan: the date, the version, and a digest of both and the plan.

`generate` writes it on `_budgetbook` (columns D:E, beside the plan parts in
A:B); `check` verifies the digest and the overwrite guard rebuilds the workbook
with the stamp's date and version, so an untouched workbook compares equal to
its rebuild.

The digest is SHA-256 over the stamp's date and version and the plan text as
read back from the sheet. There is no secret key: it detects an accidental or
naive edit of the hidden plan (a market deleted from the YAML there), not a
determined forger, who can recompute it. What makes a forged plan visible is
the structure audit (`review/structure.py`): the sheets, names and formula
cells must be the ones the plan's layout gives.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openpyxl import Workbook

KEY_COL, VALUE_COL = 4, 5   # D:E of `_budgetbook`
KEYS = ("digest", "generated", "budgetbook version")
_PREFIX = "sha256:"


@dataclass(frozen=True)
class Stamp:
    digest: str
    generated: str      # ISO date, as written on About
    version: str

    def expected_digest(self, plan_text: str) -> str:
        return plan_digest(plan_text, self.generated, self.version)

    @property
    def date(self) -> dt.date | None:
        return parse_date(self.generated)


def plan_digest(plan_text: str, generated: str, version: str) -> str:
    # newline-separated, the plan last: no field can run into the next one
    payload = f"budgetbook stamp 1\n{generated}\n{version}\n{plan_text}"
    return _PREFIX + hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def parse_date(text: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(text))
    except ValueError:
        return None


def write_stamp(wb: Workbook, sheet_title: str, plan_text: str, today: dt.date, version: str) -> None:
    """The stamp of `plan_text` (as read back from the sheet, so escaping never changes the digest)."""
    ws = wb[sheet_title]
    generated = today.isoformat()
    values = (plan_digest(plan_text, generated, version), generated, version)
    for r, (key, value) in enumerate(zip(KEYS, values, strict=True), 1):
        for col, text in ((KEY_COL, key), (VALUE_COL, value)):
            cell = ws.cell(r, col, text)
            cell.data_type = "s"


def read_stamp(wb: Workbook, sheet_title: str) -> Stamp | None:
    """The stamp, or None when the sheet holds none (a workbook from before stamps, or it was cleared)."""
    if sheet_title not in wb.sheetnames:
        return None
    ws = wb[sheet_title]
    if tuple(ws.cell(r, KEY_COL).value for r in range(1, len(KEYS) + 1)) != KEYS:
        return None
    digest, generated, version = (ws.cell(r, VALUE_COL).value for r in range(1, len(KEYS) + 1))
    return Stamp(str(digest or ""), str(generated or ""), str(version or ""))
