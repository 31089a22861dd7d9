"""Never lose a user's edits: `generate` replaces only a workbook that nobody has touched.

"Touched" is any difference from what budgetbook wrote, not only typed inputs
and formulas: an added sheet, notes, a helper cell, a comment, a number format,
an input retyped as a formula of the same value. `edits.differences` rebuilds
the workbook from its own embedded plan and compares the two; nothing is
evaluated.
"""

from __future__ import annotations

from pathlib import Path

from .. import __version__
from ..errors import BudgetbookError, OutputError
from .edits import Difference, differences
from .readback import open_book
from .snapshot import generation_facts

SHOWN = 3  # differences named in the refusal; the rest are counted


def edits_since_generated(path: Path) -> list[Difference]:
    """Every difference between the workbook at `path` and the one budgetbook would write for its plan.

    When there are some and another budgetbook version made the workbook, a note (a `Difference`
    with no `where`) comes last: some of them may be that version's, not the user's.
    """
    book = open_book(path, styles=True)  # number formats and comments are edits too
    found = differences(book)
    _, version, _ = generation_facts(book)
    if found and version != __version__:
        found.append(Difference("", f"it was made by budgetbook {version}, this is {__version__}: some "
                                    "differences may be the new version's"))
    return found


def ensure_replaceable(out: Path) -> None:
    """Refuse to write over a workbook edited since it was generated, or over a foreign file.

    The caller has already refused what must never be written (an input, a
    directory, a device: `atomic.check_destination`).
    """
    if not out.exists():
        return
    try:
        found = edits_since_generated(out)
    except BudgetbookError as exc:
        raise OutputError(f"exists and is not a budgetbook workbook we can read ({exc.reason}); "
                          "move it away or pass --force to replace it", source=str(out)) from None
    edits = [d for d in found if d.where]
    if edits:
        shown = "; ".join(str(edit) for edit in edits[:SHOWN])
        more = f" and {len(edits) - SHOWN} more change(s)" if len(edits) > SHOWN else ""
        notes = "".join(f" ({d.message})" for d in found if not d.where)
        raise OutputError(f"was edited since it was generated ({shown}{more}){notes}; "
                          f"run `budgetbook extract {out} -o plan.yaml` first to keep the edits, "
                          "or pass --force to replace it", source=str(out))
