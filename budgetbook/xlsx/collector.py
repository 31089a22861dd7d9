"""Python's cyclic garbage collector held off for a block, and back as it was after.

Reading a workbook and evaluating it build a few objects a cell and no cycle worth collecting; every
~700 new objects the collector runs, and now and then it walks every object alive (the opened book's
too): a third of reading a large book, ~0.3 of 1.3 CPU s of evaluating 44,000 formula cells. What the
block leaves is collected when the collector runs again after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
