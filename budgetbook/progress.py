"""Progress of long work, told as stages: the library says what it is doing, whoever listens shows it.

Long work (`check` of a portfolio: tens of thousands of cells; `simulate` of millions of samples)
calls `stage("reading", 43_914, "cells")` as it enters each part. Nothing happens unless a listener
is set for the current context (`listening`): the library renders nothing and writes to no stream.
The command line listens only where a person or a CI log can see it (`output/progress.py`: on a
terminal, never into a pipe, in JSON output or with `--quiet`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One part of a command's work: `reading` 43,914 `cells`."""

    name: str
    count: int | None = None
    unit: str = ""

    @property
    def text(self) -> str:
        """"reading 43,914 cells" (the name alone where there is no count)."""
        if self.count is None:
            return self.name
        return f"{self.name} {self.count:,}" + (f" {self.unit}" if self.unit else "")


Listener = Callable[[Stage], None]
_LISTENER: ContextVar[Listener | None] = ContextVar("budgetbook_progress", default=None)


def stage(name: str, count: int | None = None, unit: str = "") -> None:
    """Tell the listener (if any) that the work enters stage `name` (`count` `unit`s of it)."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(Stage(name, count, unit))


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """`listener` hears every `stage` called inside the block (in this context only)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)
