"""Counts in words: "1 row", "2 rows", "1 batch", "3 batches".

Every message that says how many of something there are goes through `plural`,
so a count of one never reads "1 rows" and every output agrees on the form
(thousands separated, as the money beside it is).
"""

from __future__ import annotations

_IRREGULAR = {"batch": "batches", "match": "matches", "entry": "entries", "property": "properties",
              "category": "categories", "was": "were", "is": "are", "has": "have", "does": "do"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` and `noun`, the noun plural unless the count is exactly one: plural(1, "row") == "1 row",
    plural(1200, "batch") == "1,200 batches"; `many` gives a plural the table does not know."""
    if count == 1:
        return f"1 {noun}"
    return f"{count:,} {many or _IRREGULAR.get(noun) or _regular(noun)}"


def _regular(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"
