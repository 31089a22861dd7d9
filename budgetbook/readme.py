"""The documentation's generated parts: the plan keys (from the plan model), the sheets and the name
prefixes (from the line-item registry), each between `<!-- generated:NAME -->` markers in whichever page
holds it (docs/plans.md, docs/workbook.md). `tests/docs/test_docs.py` fails when a page drifts from them;
`python -m budgetbook.readme` rewrites them in place in README.md and every docs/*.md (or in the files named).
"""

from __future__ import annotations

import re
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .lineitems.registry import FRAME_PREFIXES, FRAME_TITLES, LINE_ITEMS
from .plan.inputs import bounds_of
from .plan.numbers import Bounds, Num
from .planfile.model import PLAN_MODEL

MARK = "<!-- generated:{name} -->"
END = "<!-- /generated:{name} -->"


def _bounds(model: type[BaseModel], name: str) -> Bounds | None:
    try:
        return bounds_of(model, name)
    except LookupError:
        return None


def _models(annotation: Any) -> list[tuple[str, type[BaseModel]]]:
    """(path suffix, model) for a field that holds models: itself, a list of them, or a map of them."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [("", annotation)]
    if origin is list:
        return [("[]" + s, m) for s, m in _models(args[0])]
    return [(s, m) for arg in args for s, m in _models(arg)]


def _default(field: Any) -> str:
    value = field.default
    if value is PydanticUndefined:
        return "required" if field.default_factory is None else ""
    if isinstance(value, Num):
        return f"{value.base:g}"
    if isinstance(value, BaseModel) or value in (None, "", False):
        return ""
    return f"`{value}`"


def _kind(annotation: Any) -> str:
    """What a field that is not a number holds, in words."""
    options = [a for a in typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal]
    if options:
        return "one of " + ", ".join(f"`{o}`" for o in options)
    if annotation is bool:
        return "true or false"
    if "date" in str(annotation):
        return "date"
    if typing.get_origin(annotation) is dict:
        return "map of ids"
    return "text"


def _rows(model: type[BaseModel], prefix: str) -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        bounds, nested = _bounds(model, name), _models(field.annotation)
        if bounds is not None:
            what = bounds.description or field.description or ""
            unit = bounds.unit.replace("money", "currency")
            if typing.get_origin(field.annotation) is dict:
                path += ".<id>"
            rows.append(f"| `{path}` | {unit} | {bounds.describe()} | {_default(field)} | {what} |")
        elif nested:
            rows.append(f"| `{path}` | | | {_default(field)} | {field.description or ''} |")
            for suffix, sub in nested:
                rows += _rows(sub, f"{path}{suffix}.")
        else:
            rows.append(f"| `{path}` | {_kind(field.annotation)} | | {_default(field)} | {field.description or ''} |")
    return rows


def plan_keys_table() -> str:
    head = ["| key | unit | allowed | default | meaning |", "|---|---|---|---|---|"]
    return "\n".join(head + _rows(PLAN_MODEL, ""))


def _wrapped(text: str, first: str, width: int = 110) -> list[str]:
    """`text` after `first`, wrapped at `width` with a two-space hanging indent (a Markdown list entry)."""
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent="  ", break_on_hyphens=False,
                         break_long_words=False)


def sheets_table() -> str:
    """The sheets in tab order, one list entry each: a line item's entry is its rule (`LineItem.doc`)."""
    entries = [("`About`", "what the workbook is, how to edit and verify it, its sheets"),
               ("`Inputs`", "every assumption (value, low, high, unit, source, allowed range), then named constants")]
    for li in LINE_ITEMS:
        title = f"`{li.fixed_title}`" if li.fixed_title else (
            "One per further item" if li.section is not None and li.section.key == "items" else "(on `Compute`)")
        entries.append((title, li.doc))
    entries += [("`Summary`", "every figure per market, the three magnitudes apart, a chart"),
                ("`Procurement`", "markets side by side, the cheapest total highlighted, and the gap to it by "
                                  "category (GPU price, utilization, goodput, ...; `docs/accounting.md`)"),
                ("`Options`", "build or buy, live: the plan's own model against an API over the serving months, and "
                 "the break-even tokens a month; where the plan prices an API (`docs/planning.md`)"),
                ("`Cash flow`", "months across: each development line per market (a row per workload or role, spread "
                 "by its timing flag), the total and the cumulative spend per market, a chart of it; the Checks sheet "
                 "holds each row's months against its figure"),
                ("`Sensitivity`", "each ranged input alone at its low and at its high, ranked by swing (totals "
                 "computed by budgetbook, swing and bars live), a tornado chart; where the plan has ranges"),
                ("`Checks`", "the workbook checking itself; the master check `checks_ok`"),
                (f"`{FRAME_TITLES[-1]}` (hidden)", "the plan the workbook was generated from")]
    return "\n".join(line for title, text in entries for line in _wrapped(text, f"- **{title}**: "))


def prefixes_table() -> str:
    rows = ["| prefix | cells |", "|---|---|"]
    rows += [f"| `{prefix}` | {meaning} |" for prefix, meaning in FRAME_PREFIXES.items()]
    rows += [f"| `{li.section.input_prefix}` | {li.section.key} inputs |" for li in LINE_ITEMS if li.section]
    rows += [f"| `{li.name_prefix}` | {li.id.replace('_', ' ')} calculations |" for li in LINE_ITEMS if li.name_prefix]
    rows.append("| `<item>_<market>` | a figure, under `show`'s `name` (`compute_aws`, `total_aws`) |")
    return "\n".join(rows)


SECTIONS = {"plan-keys": plan_keys_table, "sheets": sheets_table, "name-prefixes": prefixes_table}


def _pattern(name: str) -> str:
    return re.escape(MARK.format(name=name)) + r"\n(.*?)" + re.escape(END.format(name=name))


def block(text: str, name: str) -> str | None:
    """The generated block `name` of a README text, or None."""
    match = re.search(_pattern(name), text, re.S)
    return match.group(1).rstrip("\n") if match else None


def rewrite(text: str) -> str:
    for name, make in SECTIONS.items():
        text = re.sub(_pattern(name), lambda m: f"{MARK.format(name=name)}\n{make()}\n"
                      f"{END.format(name=name)}", text, flags=re.S)
    return text


def pages(root: Path) -> list[Path]:
    """The documentation pages: README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


if __name__ == "__main__":
    for target in [Path(arg) for arg in sys.argv[1:]] or pages(Path.cwd()):
        text = target.read_text(encoding="utf-8")
        if rewrite(text) != text:
            target.write_text(rewrite(text), encoding="utf-8")
            print(f"rewrote {target}")
