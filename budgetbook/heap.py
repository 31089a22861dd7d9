"""Memory a step freed, given back to the system before the next step, which holds more.

glibc keeps what a process frees in its heap; an array or dict table under its mmap threshold
(128 KB, rising to 32 MB as big blocks come and go) is made there. Python's own small objects live
in separate arenas that never reuse that heap. So the simulation's draws (an 80 KB array per ranged
input), the Sensitivity ranking's columns and the evaluator's formula plans, freed, stayed resident
under the workbook laid out next: on the largest plans, ~170 MB of `generate`'s and `check`'s peak
after the simulation, ~50 MB after the evaluation (issue 27, docs/scale.md).
"""

from __future__ import annotations


def give_back_freed_memory() -> None:
    """glibc's `malloc_trim`: every free page of its heap returned to the system (nothing elsewhere)."""
    import ctypes  # here, not at import: ~3 ms that every command's start would pay, for a few calls on big plans

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own symbols: libc's, on Linux
    except (OSError, AttributeError):  # not glibc (macOS, musl): their allocators return memory themselves
        return
    trim(0)
