"""One exception hierarchy; `cli.main` turns any of these into one line and an exit code."""

from __future__ import annotations


class BudgetbookError(Exception):
    """A problem the user can fix: reported as one line, exit code 2."""

    exit_code = 2

    def __init__(self, message: str, *, source: str | None = None):
        self.source = source
        super().__init__(message)

    def __str__(self) -> str:
        message = super().__str__()
        return f"{self.source}: {message}" if self.source else message


class PlanError(BudgetbookError):
    """An unreadable, invalid or hostile plan file."""


class WorkbookError(BudgetbookError):
    """An unreadable, hostile or foreign workbook."""


class OutputError(BudgetbookError):
    """An output that cannot (or must not) be written."""


class UsageError(BudgetbookError):
    """Bad command-line usage: unknown template, conflicting options."""
