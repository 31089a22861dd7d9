"""The formula audit tells a book whose names are where budgetbook wrote them from the layout and the names as
read, and builds the canonical maps (`CellNames`) only where that cannot answer: the answer is the canonical
maps' equality."""

from __future__ import annotations

import pytest

from budgetbook.review.audit import _Names
from budgetbook.sheetkit.grid import CellSpec
from budgetbook.xlsx.formula_text import CellNames

_GEN = {("Inputs", "C7"): "a", ("Summary", "D4"): "b"}


@pytest.mark.parametrize("generated, current, unmoved, built", [
    (_GEN, dict(_GEN), True, False),                                        # as written: read by the maps as read
    (_GEN, {("Summary", "D4"): "b", ("Inputs", "C7"): "a"}, True, False),   # another order, the same map
    (_GEN, {("Inputs", "$C$7"): "a", ("Summary", "D4"): "b"}, True, True),  # spelled otherwise, the same cells
    (_GEN, {("INPUTS", "C7"): "a", ("Summary", "D4"): "b"}, True, True),
    (_GEN, {("Inputs", "C8"): "a", ("Summary", "D4"): "b"}, False, True),   # moved
    (_GEN, {**_GEN, ("About", "Z99"): "helper"}, False, True),              # a name of the user's own
    # equal as read, but two cells that are one in canonical spelling: their order decides, so the long way
    ({("Inputs", "c7"): "a", ("Inputs", "C7"): "b"}, {("Inputs", "C7"): "b", ("Inputs", "c7"): "a"}, False, True),
])
def test_unmoved_is_the_equality_of_the_canonical_maps(generated, current, unmoved, built):
    layout = [CellSpec(name, sheet, cell, "=1", "calc") for (sheet, cell), name in generated.items()]
    names = _Names(layout, {name: where for where, name in current.items()})
    assert names.unmoved is unmoved
    assert unmoved == (CellNames.of(generated) == CellNames.of(current))
    assert ("generated" in vars(names)) is built
    assert names.current == CellNames.of(current) and names.generated == CellNames.of(generated)
