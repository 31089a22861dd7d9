"""The Adjustments table read back: the rows finance typed, as the plan's `adjustments:` (issue 31).

`check` recomputes the reference with the workbook's adjustments, not the embedded plan's, and
reports each one added, changed or removed (`input_changed`, info); a row that cannot be an
adjustment (an unknown market, a month outside the plan, text where an amount belongs, a formula
reading what is not one of our figures of its market, or itself) is one `invalid_input` naming its
cell, and is left out of the reference. `extract` writes the rows into the plan (`with_rows`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..lineitems import adjustments as adj
from ..lineitems.adjustment_formula import FormulaProblem
from ..xlsx.formula_text import formula_of
from .findings import Finding, clipped
from .readback import OpenedWorkbook


def has_table(book: OpenedWorkbook) -> bool:
    return adj.SECTION.of(book.plan) is not None


def _cell(book: OpenedWorkbook, n: int, field: str) -> tuple[str, str, Any] | None:
    where = book.locate(f"adj_{n}_{field}")
    if where is None:
        return None
    value = book.value_at(*where)
    text = formula_of(value)
    return where[0], where[1], text if text is not None else value


def read_rows(book: OpenedWorkbook) -> tuple[list[dict], list[Finding]]:
    """The table's filled rows as plan entries (in row order), and a finding for each row refused."""
    rows: list[dict] = []
    findings: list[Finding] = []
    for n in range(1, adj.table_rows(book.plan) + 1):
        cells = {field: _cell(book, n, field) for field in adj.FIELDS}
        gone = [field for field, found in cells.items() if found is None]
        if gone:  # a deleted name: the row cannot be read, and what it held would be lost without a word
            findings += [Finding("missing", f"`adj_{n}_{field}` is gone: its defined name or sheet (Adjustments) "
                                 f"was deleted, so adjustment {n} cannot be read", name=f"adj_{n}_{field}")
                         for field in gone]
            continue
        read = {field: found for field, found in cells.items() if found is not None}  # every field
        note = book.locate(f"adj_{n}_label")
        raw = {field: (c[2] if c is not None else None) for field, c in cells.items()}
        raw = {k: (v.strip() if isinstance(v, str) and not v.startswith("=") else v) for k, v in raw.items()}
        if all(v in (None, "") for v in raw.values()):
            continue
        entry: dict[str, Any] = {"label": raw["label"] or f"Adjustment {n}", "market": raw["market"] or "",
                                 "item": raw["item"] or adj.OTHER, "amount": raw["amount"]}
        month = raw["month"]
        if month not in (None, ""):
            entry["month"] = int(month) if isinstance(month, float) and month.is_integer() else month
        if note is not None:
            text = book.wb[note[0]].cell(row=book.wb[note[0]][note[1]].row, column=adj.COLUMNS["note"]).value
            if isinstance(text, str) and text.strip():
                entry["note"] = text.strip()
        problem = _problem(book, entry)
        if problem is not None:
            field, message = problem
            sheet, cell, value = read[field]
            findings.append(Finding("invalid_input", f"adjustment {n} ({field}): {message}", sheet, cell,
                                    f"adj_{n}_{field}", actual=clipped(value, quote=False)))
            continue
        rows.append(entry)
    return rows, findings


def _problem(book: OpenedWorkbook, entry: dict) -> tuple[str, str] | None:
    if entry["amount"] in (None, ""):
        return "amount", "no amount: type a number, or a formula over our figures"
    if isinstance(entry["amount"], bool) or not isinstance(entry["amount"], (int, float, str)):
        return "amount", "not a number"
    if isinstance(entry["amount"], str) and not entry["amount"].startswith("="):
        return "amount", f"text {clipped(entry['amount'])} where an amount belongs: type a number"
    try:
        model = adj.Adjustment.model_validate(entry)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "amount"
        return (field if field in adj.FIELDS else "amount"), error["msg"].removeprefix("Value error, ")
    except FormulaProblem as exc:
        return "amount", str(exc)
    return adj.problem(book.plan, model)


def _key(entry: dict) -> tuple:
    return (entry.get("label"), entry.get("market"), entry.get("item", adj.OTHER), entry.get("month"),
            entry.get("amount"))


def changes(book: OpenedWorkbook, rows: list[dict]) -> list[Finding]:
    """`input_changed` (info) for each adjustment added, changed or removed against the embedded plan."""
    before = [a.model_dump(exclude_defaults=False) for a in adj.SECTION.of(book.plan) or []]
    findings = []
    for n in range(1, max(len(before), len(rows)) + 1):
        old = before[n - 1] if n <= len(before) else None
        new = rows[n - 1] if n <= len(rows) else None
        if old is not None and new is not None and _key(old) == _key(new):
            continue
        where = book.locate(f"adj_{n}_amount") or (None, None)
        what = "added" if old is None else ("removed" if new is None else "changed")
        shown: dict = new if new is not None else old or {}
        findings.append(Finding("input_changed", f"adjustment {n} {what}: {clipped(shown['label'], quote=False)} "
                                f"({shown['market']}, {shown['amount']})", where[0], where[1], f"adj_{n}_amount",
                                expected=None if old is None else old["amount"],
                                actual=None if new is None else new["amount"]))
    return findings


def as_planned(book: OpenedWorkbook, rows: list[dict]) -> bool:
    """Whether the table's rows are the embedded plan's `adjustments:`, every field (`_key`) and note alike."""
    notes = [a.note for a in adj.SECTION.of(book.plan) or []]
    return not changes(book, rows) and [row.get("note", "") for row in rows] == notes
