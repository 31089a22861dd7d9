"""`--strict` (issue 13): whether a plan's sanity warnings refuse it (exit 2), for this one command.

A module of its own, importing nothing, so the command line sets and resets it without loading the plan model.
"""

from __future__ import annotations

import contextvars

STRICT: contextvars.ContextVar[bool] = contextvars.ContextVar("budgetbook_strict", default=False)
