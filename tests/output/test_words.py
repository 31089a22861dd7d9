"""Counts in messages: one helper, so "1 rows" or "1 batches" never reaches an output."""

from __future__ import annotations

import re
from pathlib import Path

from budgetbook.output.words import plural


def test_plural_is_singular_only_for_one():
    assert [plural(n, "row") for n in (0, 1, 2, 1200)] == ["0 rows", "1 row", "2 rows", "1,200 rows"]
    assert (plural(1, "batch"), plural(3, "batch")) == ("1 batch", "3 batches")
    assert (plural(1, "entry"), plural(2, "entry"), plural(2, "commitment")) == ("1 entry", "2 entries",
                                                                                  "2 commitments")
    assert plural(2, "formula cell") == "2 formula cells"


def test_no_message_puts_a_bare_count_before_a_plural_noun():
    """A count straight into `{n:,} rows` reads "1 rows" for one: every such message goes through `plural`."""
    nouns = "rows|batches|invoices|sheets|findings|figures|changes|inputs|commitments|entries|formula cells"
    bare = re.compile(r"\{[a-z_.()]*(rows|count|len\([a-z_.]+\))(:,)?\} (" + nouns + r")\b")
    found = [f"{p}:{i}: {line.strip()}" for p in sorted(Path("budgetbook").rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if bare.search(line)]
    assert found == []
