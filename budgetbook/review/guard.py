"""Never lose a user's edits: `generate` replaces only a workbook that nobody has touched."""

from __future__ import annotations

from pathlib import Path

from ..errors import BudgetbookError, OutputError


def ensure_replaceable(out: Path) -> None:
    """Refuse to write over a workbook edited since it was generated, or over a foreign file."""
    if not out.exists():
        return
    if out.is_dir():
        raise OutputError("is a directory; give a file name", source=str(out))
    from .check import edits_since_generated

    try:
        edits = edits_since_generated(out)
    except BudgetbookError as exc:
        raise OutputError(f"exists and is not a budgetbook workbook we can read ({_reason(exc)}); "
                          "move it away or pass --force to replace it", source=str(out)) from None
    if edits:
        first = edits[0]
        more = f" and {len(edits) - 1} more change(s)" if len(edits) > 1 else ""
        raise OutputError(f"was edited since it was generated ({first.where or first.name}: {first.message}{more}); "
                          f"run `budgetbook extract {out} -o plan.yaml` first to keep the edits, "
                          "or pass --force to replace it", source=str(out))


def _reason(exc: BudgetbookError) -> str:
    text = str(exc)
    return text.split(": ", 1)[1] if exc.source and ": " in text else text
