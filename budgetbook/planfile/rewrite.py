"""A plan's text with some inputs given new values, its comments, key order and layout kept.

`extract` writes a workbook's edited inputs back this way, and `fit` its solved input: ruamel.yaml's
round trip keeps every comment (the sources the templates cite) and the plan's own spelling of each
value that did not change (`3.00`, `13.0e9`, defaults left out).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from ..plan.inputs import changed_values, input_cells, month_text
from ..plan.model import Plan
from ..plan.numbers import Num


def rewrite_values(text: str, plan: Plan, values: dict[tuple, Num],
                   edit: Callable[[Any], None] | None = None) -> str:
    """`text` (the plan `plan` was read from) with the inputs at `values`' key paths set to them; `edit`,
    where given, changes the loaded data further before it is written."""
    yaml = YAML()  # round-trip: keeps comments, order and layout
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    data = yaml.load(text)
    by_path = {cell.path: cell for cell in input_cells(plan)}
    for path, num in changed_values(plan, values).items():
        node = data
        for part in path[:-1]:
            node = node.setdefault(part, CommentedMap()) if isinstance(node, dict) else node[part]
        month = month_text(by_path[path], num) if path in by_path else None
        node[path[-1]] = yaml_value(num) if month is None else month
    if edit is not None:
        edit(data)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def yaml_value(num: Num) -> Any:
    """A number as the plan writes it: plain, or a range as a flow mapping `{low: .., base: .., high: ..}`."""
    value = num.to_yaml()
    if isinstance(value, dict):
        mapping = CommentedMap(value)
        mapping.fa.set_flow_style()
        return mapping
    return value
