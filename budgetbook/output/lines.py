"""Outputs of a few lines: `templates` (a name and its description a line)."""

from __future__ import annotations

from .emit import line
from .plaintext import visible


def render_templates(listed: list[tuple[str, str]]) -> None:
    """One template a line: its name, padded to the longest, then its one-line description."""
    width = max(len(name) for name, _ in listed)
    for name, description in listed:
        line(visible(f"{name:<{width}}  {description}"))
