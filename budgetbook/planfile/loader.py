"""Plan files and built-in templates in, validated `Plan` out; every failure is one `PlanError` line."""

from __future__ import annotations

import datetime as dt
import re
import typing
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import PlanError
from ..output.plaintext import visible
from ..output.words import plural
from ..physics.sanity import impossible, plan_sanity
from ..plan.catalog import plan_spelling
from ..plan.model import GPU_PATTERN, ID_PATTERN, Plan, suggest
from ..plan.templates import _templates_dir, template_description, template_names, template_text  # noqa: F401 - loader's API
from ..plan.yamlsafe import parse_yaml_text, printable_key, read_plan_text
from ..sheetkit import anchors
from ..sheetkit.grid import BadName, Blueprint, CellSpec
from ..workbook.build import build_book, figured_first, workbook_layout
from ..xlsx.file_bytes import OLE_MAGIC, ZIP_MAGICS
from .model import PLAN_MODEL

DEFAULT_TEMPLATE = "finetune-13b-lora"


# LibreOffice hangs past this many names; a book that would have more names only its anchors (`anchors`)
LIBREOFFICE_MAX_NAMES = anchors.LIBREOFFICE_MAX_NAMES


class PlanWarning(UserWarning):
    """A plan that is valid but probably wrong (a sparse peak, an MFU too good to be true)."""


def _names_a_file(path: Path) -> bool:
    return path.exists() or path.suffix in (".yaml", ".yml") or len(path.parts) > 1


def resolve(spec: str | Path | None) -> tuple[str, str]:
    """(source label, YAML text) of a plan path or a template name; None is the default template."""
    spec = DEFAULT_TEMPLATE if spec is None else spec
    path = Path(spec)
    if _names_a_file(path):
        _refuse_workbook(path)
        return str(path), read_plan_text(path)
    return str(spec), template_text(str(spec))


def _refuse_workbook(path: Path) -> None:
    """A workbook given as PLAN: say so and name the commands that read one, not "byte 0x50 is not UTF-8"."""
    if not path.is_file():
        return  # read_plan_text says what it is instead (and a FIFO must not be opened)
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        return
    if head.startswith(ZIP_MAGICS):
        what = "an Excel workbook (a zip archive)"
    elif head.startswith(OLE_MAGIC):
        what = "an old binary .xls or an encrypted workbook"
    else:
        return
    raise PlanError(f"is {what}, not a plan file: check it with `budgetbook check {path}`, or write its "
                    f"inputs back as a plan with `budgetbook extract {path} -o plan.yaml`", source=str(path))


def plan_file(spec: str | Path | None) -> Path | None:
    """The file `resolve(spec)` reads: the plan file, or the template's own file where it is one on disk."""
    spec = DEFAULT_TEMPLATE if spec is None else spec
    path = Path(spec)
    if _names_a_file(path):
        return path
    if str(spec) not in template_names():
        return None
    found = _templates_dir().joinpath(f"{spec}.yaml")
    return found if isinstance(found, Path) else None


def load_plan(spec: str | Path | None = None, *, strict: bool = False) -> Plan:
    """The plan of a file or template; `strict` (`--strict`): its warnings refuse it, after they are shown."""
    source, text = resolve(spec)
    return plan_from_text(text, source, strict=strict)


def plan_from_text(text: str, source: str = "<plan>", *, strict: bool = False, shaped_like: Plan | None = None,
                   lay_out: Callable[[Plan], Iterable[CellSpec]] = workbook_layout) -> Plan:
    try:
        data = parse_yaml_text(text)
    except PlanError as exc:
        exc.source = source
        raise
    return plan_from_data(data, source, shaped_like=shaped_like, strict=strict, lay_out=lay_out)


def plan_and_book(text: str, source: str = "<plan>", *, strict: bool = False) -> tuple[Plan, Blueprint]:
    """The plan and its workbook as `generate` writes it (dated today, each input's source from `text`).

    Laid out once: the blueprint that refuses what cannot be written (`refuse_unwritable`) is the one
    written. The memo's layout (`workbook_layout`, dated 2000-01-01, without the comments) was a second
    one: on the largest plan about a quarter of `generate`'s CPU seconds (docs/scale.md).
    """
    books: list[Blueprint] = []

    def lay_out(plan: Plan) -> list[CellSpec]:
        figured_first(plan)
        books.append(build_book(plan, dt.date.today(), plan_text=text))
        return books[-1].layout()

    plan = plan_from_text(text, source, strict=strict, lay_out=lay_out)
    return plan, books[-1]


def plan_from_data(data: Any, source: str = "<plan>", *, shaped_like: Plan | None = None, strict: bool = False,
                   lay_out: Callable[[Plan], Iterable[CellSpec]] = workbook_layout) -> Plan:
    """The validated plan; `shaped_like`, a plan already known writable with the same ids, spares the layout;
    `strict`: a plan with warnings is refused (exit 2), once they are shown; `lay_out`: the layout that
    refuses what cannot be written (`plan_and_book`: the one `generate` writes)."""
    if data is None:
        raise PlanError("the plan is empty", source=source)
    try:
        plan = PLAN_MODEL.model_validate(data)
    except ValidationError as exc:
        raise PlanError(describe_validation_error(exc), source=source) from None
    except RecursionError:
        raise PlanError("the plan is nested too deeply", source=source) from None
    if shaped_like is None or _ids(plan) != _ids(shaped_like):
        refuse_unwritable(plan, source, lay_out)

    problem = impossible(plan)
    if problem is not None:
        raise PlanError(problem, source=source)
    found = plan_warnings(plan)
    for message in found:
        warnings.warn(visible(f"{source}: {message}"), PlanWarning, stacklevel=2)
    if found and strict:
        raise PlanError(f"{len(found)} warning{'s' if len(found) > 1 else ''} (above); --strict makes them errors",
                        source=source)
    return plan


def refuse_unwritable(plan: Plan, source: str,
                      lay_out: Callable[[Plan], Iterable[CellSpec]] = workbook_layout) -> None:
    """Lay the plan out as its workbook (plain data, no openpyxl) and refuse what `generate` would refuse.

    The schema checks each id alone; only the layout knows every defined name the
    ids make: two of them can meet (item `compute_x` on market `y`, the compute
    line on market `x_y`), or a join can spell an escape (`mkt_x1000_price`).
    Checking here makes `show`, `generate`, `check` and `extract` agree on which
    plans are valid.
    """
    try:
        names = sum(1 for spec in lay_out(plan) if spec.named)
    except BadName as exc:
        found = _id_in(plan, exc.name)
        raise PlanError((f"`{found}`: " if found else "") + exc.reason, source=source) from None
    except PlanError as exc:  # the layout's own kind kept (`TooLarge`): a book's embedded plan says which
        raise type(exc)(exc.reason, source=source) from None
    if names > LIBREOFFICE_MAX_NAMES:
        warnings.warn(visible(f"{source}: its workbook has {names:,} defined names; LibreOffice (7.4) hangs opening a "
                      f"workbook with more than {LIBREOFFICE_MAX_NAMES:,} (Excel opens it): split the plan to "
                      "edit it in LibreOffice"), PlanWarning, stacklevel=3)


def _ids(plan: Plan) -> list[tuple[str, int, str | None]]:
    """Every entry's id, by section and position: what the workbook's defined names are made of."""
    return [(key, i, getattr(entry, "id", None)) for key in type(plan).model_fields
            for i, entry in enumerate(getattr(plan, key) if isinstance(getattr(plan, key), list) else [])]


def _id_in(plan: Plan, name: str) -> str | None:
    """The key path of the longest plan id that is a run of whole words of the defined name `name`.

    The longest: of `compute_x`, `x_y` and `y` in `compute_x_y`, the id with the
    most joints in it is the likeliest to run into its neighbours.
    """
    found = []
    for key in type(plan).model_fields:
        entries = getattr(plan, key)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            ident = getattr(entry, "id", None)
            if isinstance(ident, str) and re.search(rf"(?:^|_){re.escape(ident.lower())}(?:_|$)", name.lower()):
                found.append((f"{key}[{i}].id", ident))
    best = max(reversed(found), key=lambda pair: len(pair[1]), default=None)
    return best[0] if best else None


def key_path(loc: tuple) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in ("function-after[_parse, Num]",) or "[" in str(part) and "(" in str(part):
            continue  # pydantic's internal names of union branches
        else:
            key = printable_key(part)  # a key holding a newline must not break the one-line message
            path += f".{key}" if path else key
    return path


# what a pattern means, for a reader who does not read regular expressions
PATTERN_WORDS = {
    ID_PATTERN: "lowercase letters, digits and `_`, starting with a letter, at most 40 characters",
    GPU_PATTERN: "letters, digits and `_`, starting with a letter, at most 24 characters (e.g. `H100_SXM`)",
    r"^[A-Z]{3}$": "a three-letter ISO 4217 currency code such as `USD`",
}


def _shown(value: Any) -> str:
    return f"{value!r:.60}" if isinstance(value, (str, int, float)) else f"a {type(value).__name__}"


def describe_validation_error(exc: ValidationError) -> str:
    """One line for the first error: the key path in backticks, the bad value, what is allowed."""
    error = exc.errors(include_url=False)[0]
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
    path, kind, given = key_path(loc), error["type"], error.get("input")
    message = error["msg"].removeprefix("Value error, ")
    if message.startswith("`"):
        return message  # a plan-wide check that names its own key path
    if kind == "missing":
        return f"`{path}`: required key is missing"
    if message.startswith("unknown key `"):
        key, rest = message.removeprefix("unknown key `").split("`", 1)
        allowed = "" if rest else f" (allowed here: {', '.join(_allowed_keys(loc))})"
        return f"`{key_path(loc + (key,))}`: unknown key{rest}{allowed}"
    if kind == "string_pattern_mismatch":
        pattern = error["ctx"]["pattern"]
        message = f"expected {PATTERN_WORDS.get(pattern, f'text matching {pattern}')}, got {_shown(given)}"
        spelled = plan_spelling(given) if pattern == GPU_PATTERN and isinstance(given, str) else None
        if spelled is not None:
            message += f"; did you mean `{spelled}` (the catalog's id for it)?"
    elif kind == "literal_error":
        options = re.findall(r"'([^']*)'", error["ctx"]["expected"])
        message = (f"expected one of {', '.join(f'`{o}`' for o in options)}, got {_shown(given)}"
                   f"{suggest(str(given), options)}")
    elif kind.startswith(("date_", "datetime_")):
        message = f"expected a date as YYYY-MM-DD, got {_shown(given)} ({message.split(', ', 1)[-1]})"
    elif kind in ("string_type", "bool_type", "dict_type", "list_type", "bool_parsing"):
        wanted = {"string_type": "text", "dict_type": "a mapping of keys", "list_type": "a list"}
        message = f"expected {wanted.get(kind, 'true or false')}, got {_shown(given)}"
    elif kind in ("too_short", "too_long"):
        message = _count_message(kind, error.get("ctx", {}), given)
    elif kind in ("string_too_short", "string_too_long"):
        message = f"{message} (got {_shown(given)})"
    return f"`{path}`: {message}" if path else message


def _count_message(kind: str, ctx: dict, given: Any) -> str:
    """`at most 50 entries, got 20,000`: a list or mapping with too many (or too few) entries."""
    actual = int(ctx.get("actual_length", len(given) if hasattr(given, "__len__") else 0))
    if kind == "too_long":
        return f"at most {plural(int(ctx.get('max_length', 0)), 'entry')}, got {actual:,}"
    return f"at least {plural(int(ctx.get('min_length', 0)), 'entry')}, got {actual:,}"


def _allowed_keys(loc: tuple) -> list[str]:
    model: Any = PLAN_MODEL
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) if hasattr(model, "model_fields") else None
        if field is None:
            return []
        found = [a for a in (field.annotation, *typing.get_args(field.annotation))
                 for a in (a, *typing.get_args(a)) if isinstance(a, type) and issubclass(a, BaseModel)]
        if not found:
            return []
        model = found[0]
    return [f"`{k}`" for k in model.model_fields]


def plan_warnings(plan: Plan) -> list[str]:
    """Every sanity warning of a valid plan, one line each (`physics.sanity` holds the rules)."""
    return [found.message for found in plan_sanity(plan)]


