"""Python values from what the `formulas` package computes; both evaluators report through this."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """A Python value from a `formulas` result: a 1x1 range, a numpy scalar, or an Excel error."""
    while hasattr(value, "value") and not isinstance(value, (str, bytes)):
        value = value.value
    try:
        import numpy as np

        if isinstance(value, np.ndarray):
            value = value.ravel()[0] if value.size else None
        if isinstance(value, np.generic):
            value = value.item()
    except ImportError:  # pragma: no cover
        pass
    if type(value).__name__ == "XlError":
        return str(value)
    if type(value).__name__ == "Token" and str(value) == "empty":  # schedula's blank cell, not the text
        return None
    return value
