"""Load YAML the safe way: plain data only, bounded size and depth, no aliases, no duplicate keys.

PyYAML's SafeLoader already refuses language tags (``!!python/object``), but it
happily expands an alias bomb into a structure that later code walks for hours,
and it lets a later duplicate key silently win. Plans are hand-edited, so both
are mistakes worth one clear line.

Aliases (`checkpoints: *ck`) are refused outright, not expanded: an alias makes
two places of the plan one object and one place in the text. `check` writes a
workbook's edited inputs into the parsed plan and `extract` writes them into
the plan's text, so an edit of one workload's input would silently change every
workload sharing the anchor. Expanding would fix the parsed plan but not the
text `extract` rewrites (it keeps the user's comments by editing the original
text), and refusing also ends alias bombs at the first alias.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.reader import Reader
from yaml.resolver import Resolver

from ..errors import PlanError

MAX_PLAN_BYTES = 1_000_000
MAX_DEPTH = 40
MAX_PATH_PARTS = 8


class _Problem(Exception):
    """A YAML-level problem at a mark; `parse_yaml_text` adds the key path and raises `PlanError`."""

    def __init__(self, message: str, mark):
        super().__init__(message)
        self.mark = mark


if TYPE_CHECKING:  # a mixin over either loader: what it calls is a SafeLoader's
    _LoaderMethods = yaml.SafeLoader
else:
    _LoaderMethods = object


class _PlanRules(_LoaderMethods):
    """What a plan may hold beyond safe YAML: no aliases, bounded depth, text keys, no duplicates."""

    _depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _Problem(f"YAML aliases (`*{printable_key(event.anchor):.40}`) are not allowed in plans: "
                           "write the values out (a shared value would change everywhere with one edit)",
                           event.start_mark)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Problem(f"nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _Problem(f"key {key!r:.40} must be text", key_node.start_mark)
            if key in seen:
                raise _Problem(f"duplicate key `{key}`: the second would silently replace the first",
                               key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _PlanLoader(_PlanRules, yaml.SafeLoader):
    """Pure Python: slow, but its error messages (with the offending line drawn) are the ones users see."""


try:
    CParser: Any = importlib.import_module("yaml._yaml").CParser
except (ImportError, AttributeError):  # PyYAML built without libyaml: every plan takes the pure-Python loader
    CParser = None


if CParser is not None:
    class _FastPlanLoader(_PlanRules, Composer, CParser, SafeConstructor, Resolver):
        """libyaml scans and parses (7x faster on a big portfolio); composing and the rules stay in Python."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)


def _reject_tag(loader, tag_suffix, node):
    tag = node.tag.replace("tag:yaml.org,2002:", "!!", 1)
    raise _Problem(f"YAML tag `{tag}` is not allowed (plans hold plain numbers, text, lists and mappings)",
                   node.start_mark)


def _int(loader, node):
    # a 400-digit integer overflows float() later and a 5,000-digit one trips Python's
    # int-parsing limit: both would surface as an internal error, not a plan problem
    text = str(node.value)
    if len(text.replace("_", "").lstrip("+-")) > 300:
        raise _Problem(f"the number {text[:12]}... ({len(text):,} characters) is too large for any plan",
                       node.start_mark)
    value = yaml.SafeLoader.construct_yaml_int(loader, node)
    if abs(value) >= 10**300:
        raise _Problem(f"the number {text[:12]}... is too large for any plan", node.start_mark)
    return value


_PlanLoader.add_constructor("tag:yaml.org,2002:int", _int)
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
if CParser is not None:  # one set of constructors and resolvers for both loaders
    _FastPlanLoader.yaml_constructors = _PlanLoader.yaml_constructors
    _FastPlanLoader.yaml_multi_constructors = _PlanLoader.yaml_multi_constructors
    _FastPlanLoader.yaml_implicit_resolvers = _PlanLoader.yaml_implicit_resolvers


def parse_yaml_text(text: str):
    if CParser is not None and not Reader.NON_PRINTABLE.search(text):
        try:
            return yaml.load(text, Loader=_FastPlanLoader)  # noqa: S506 - a SafeConstructor with the plan rules
        except (yaml.YAMLError, _Problem):
            pass  # the pure-Python loader finds the same problem and words it as users know it
    try:
        return yaml.load(text, Loader=_PlanLoader)  # noqa: S506 - _PlanLoader is a SafeLoader
    except _Problem as exc:
        raise PlanError(f"{where(text, exc.mark)}: {exc}") from None
    except yaml.constructor.ConstructorError as exc:
        raise PlanError(f"{where(text, exc.problem_mark)}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and context_mark and context_mark.line != getattr(mark, "line", None):
            problem += f" ({context} that starts on line {context_mark.line + 1})"
        raise PlanError(f"{where(text, mark, column=True)}: invalid YAML: {problem}") from None
    except RecursionError:
        raise PlanError(f"nested more than {MAX_DEPTH} levels deep") from None


def where(text: str, mark, column: bool = False) -> str:
    """The key path of a position and its line, as in `workloads[0].mfu` (line 12)."""
    if mark is None:
        return "the plan"
    path = path_at(text, mark.index)
    line = f"line {mark.line + 1}" + (f", column {mark.column + 1}" if column else "")
    return f"`{path}` ({line})" if path else line


def path_at(text: str, index: int) -> str:
    """The key path (`workloads[0].mfu`) of the last YAML node starting at or before `index`.

    Walks parser events only (no construction, no alias expansion), so it also
    works on text that fails later, up to the point where the parser stops.
    """
    stack: list[list] = []  # ["map", key or None, expecting_key] | ["seq", index]
    parts: list = []

    def here() -> list:
        out = []
        for frame in stack:
            if frame[0] == "seq":
                out.append(frame[1])
            elif not frame[2] and frame[1] is not None:
                out.append(frame[1])
        return out

    def advance() -> None:
        if stack and stack[-1][0] == "seq":
            stack[-1][1] += 1
        elif stack:
            stack[-1][2] = True

    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            node = isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent))
            is_key = node and stack and stack[-1][0] == "map" and stack[-1][2]
            if is_key:
                stack[-1][1] = event.value if isinstance(event, yaml.ScalarEvent) else None
                stack[-1][2] = False
            if event.start_mark is not None and event.start_mark.index > index:
                break
            if node:
                parts = here()
            if isinstance(event, yaml.MappingStartEvent):
                stack.append(["map", None, True])
            elif isinstance(event, yaml.SequenceStartEvent):
                stack.append(["seq", 0])
            elif isinstance(event, yaml.CollectionEndEvent):
                stack.pop()
                advance()
            elif node and not is_key:
                advance()
    except yaml.YAMLError:
        parts = here()  # the container the parser was in when the text stopped making sense
    return _format_path(parts)


def printable_key(part) -> str:
    """A key as it can appear in a one-line message: newlines and control characters escaped."""
    text = str(part)
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def _format_path(parts: list) -> str:
    shown, more = parts[:MAX_PATH_PARTS], len(parts) > MAX_PATH_PARTS
    out = ""
    for part in shown:
        key = printable_key(part)
        out += f"[{part}]" if isinstance(part, int) else (f".{key}" if out else key)
    return out + ("..." if more else "")


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
        before = data[: exc.start].decode("utf-8", errors="replace")
        key = path_at(data.decode("utf-8", errors="replace"), len(before))
        at = f"`{key}` (line {line})" if key else f"line {line}"
        raise PlanError(f"{at}: byte 0x{data[exc.start]:02x} is not UTF-8 text; save the file as UTF-8",
                        source=str(path)) from None
