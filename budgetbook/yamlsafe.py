"""Load YAML the safe way: plain data only, bounded size, depth and aliases, no duplicate keys.

PyYAML's SafeLoader already refuses language tags (``!!python/object``), but it
happily expands an alias bomb into a structure that later code walks for hours,
and it lets a later duplicate key silently win. Plans are hand-edited, so both
are mistakes worth one clear line.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .errors import PlanError

MAX_PLAN_BYTES = 1_000_000
MAX_ALIASES = 100
MAX_DEPTH = 40


class _PlanLoader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise PlanError(
                    f"line {mark.line + 1}: more than {MAX_ALIASES} YAML aliases "
                    "(an alias bomb?); write the values out instead"
                )
        self._depth += 1
        if self._depth > MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise PlanError(f"line {mark.line + 1}: nested more than {MAX_DEPTH} levels deep")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise PlanError(
                    f"line {key_node.start_mark.line + 1}: key {key!r} must be text"
                )
            if key in seen:
                raise PlanError(
                    f"line {key_node.start_mark.line + 1}: duplicate key `{key}`"
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _reject_tag(loader, tag_suffix, node):
    raise PlanError(
        f"line {node.start_mark.line + 1}: YAML tag `{node.tag}` is not allowed "
        "(plans hold plain numbers, text, lists and mappings)"
    )


_PlanLoader.add_multi_constructor("!", _reject_tag)
_PlanLoader.add_multi_constructor("tag:yaml.org,2002:python/", _reject_tag)
# timestamps stay text; `as_of` is validated as a date by the schema
_PlanLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# YAML 1.2 floats: PyYAML (YAML 1.1) reads `13e9` and `1.5e-3` as text
_PlanLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def parse_yaml_text(text: str):
    try:
        return yaml.load(text, Loader=_PlanLoader)  # noqa: S506 - _PlanLoader is a SafeLoader
    except PlanError:
        raise
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}: " if mark else ""
        raise PlanError(f"{where}{exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PlanError(f"invalid YAML: {where}{problem}") from None
    except RecursionError:
        raise PlanError(f"nested more than {MAX_DEPTH} levels deep") from None


def read_plan_text(path: Path, max_bytes: int = MAX_PLAN_BYTES) -> str:
    """The text of a plan file: a regular file, at most `max_bytes`, valid UTF-8."""
    if not path.exists():
        raise PlanError("no such file", source=str(path))
    if not path.is_file():
        raise PlanError("not a file", source=str(path))
    size = path.stat().st_size
    if size > max_bytes:
        raise PlanError(
            f"plan is {size:,} bytes; plans are limited to {max_bytes:,} bytes", source=str(path)
        )
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PlanError(
            f"line {line}: byte 0x{data[exc.start]:02x} is not UTF-8 text; save the file as UTF-8",
            source=str(path),
        ) from None
