"""One exception hierarchy; `cli.main` turns any of these into one line and an exit code."""

from __future__ import annotations

from .output.plaintext import visible


class BudgetbookError(Exception):
    """A problem the user can fix: reported as one line, exit code 2.

    The one convention for naming the file: the message (`reason`) never starts
    with a path; the file goes in `source`, and `str()` joins them as
    "source: reason". Code that learns the file later calls `with_source`.
    """

    exit_code = 2

    def __init__(self, message: str, *, source: str | None = None):
        self.source = source
        super().__init__(message)

    @property
    def reason(self) -> str:
        """The message without the file's name."""
        return super().__str__()

    def with_source(self, source: str) -> BudgetbookError:
        """This error naming `source`, unless it already names a file (the innermost one is the most exact)."""
        if self.source is None:
            self.source = source
        return self

    def __str__(self) -> str:
        # one line, whatever a label or file name in it holds: its control characters are shown, not obeyed
        return visible(f"{self.source}: {self.reason}" if self.source else self.reason)


class PlanError(BudgetbookError):
    """An unreadable, invalid or hostile plan file."""


class WorkbookError(BudgetbookError):
    """An unreadable, hostile or foreign workbook."""


class OutputError(BudgetbookError):
    """An output that cannot (or must not) be written."""


class UsageError(BudgetbookError):
    """Bad command-line usage: unknown template, conflicting options."""
