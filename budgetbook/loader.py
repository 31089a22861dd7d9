"""Plan files and built-in templates in, validated `Plan` out; every failure is one `PlanError` line."""

from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .catalog import CATALOG, MFU_WARNING
from .errors import PlanError, UsageError
from .plan import Plan, suggest
from .yamlsafe import parse_yaml_text, read_plan_text

DEFAULT_TEMPLATE = "finetune-13b-lora"


class PlanWarning(UserWarning):
    """A plan that is valid but probably wrong (a sparse peak, an MFU too good to be true)."""


def _templates_dir():
    return resources.files("budgetbook.templates")


def template_names() -> list[str]:
    return sorted(p.name[: -len(".yaml")] for p in _templates_dir().iterdir() if p.name.endswith(".yaml"))


def template_text(name: str) -> str:
    if name not in template_names():
        raise UsageError(f"no template named `{name}`{suggest(name, template_names())} "
                         f"(templates: {', '.join(template_names())})")
    return _templates_dir().joinpath(f"{name}.yaml").read_text(encoding="utf-8")


def template_description(name: str) -> str:
    return str(parse_yaml_text(template_text(name)).get("description", "")).strip().splitlines()[0]


def resolve(spec: str | Path | None) -> tuple[str, str]:
    """(source label, YAML text) of a plan path or a template name; None is the default template."""
    spec = DEFAULT_TEMPLATE if spec is None else spec
    path = Path(spec)
    if path.exists() or path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        return str(path), read_plan_text(path)
    return str(spec), template_text(str(spec))


def load_plan(spec: str | Path | None = None) -> Plan:
    source, text = resolve(spec)
    return plan_from_text(text, source)


def plan_from_text(text: str, source: str = "<plan>") -> Plan:
    try:
        data = parse_yaml_text(text)
    except PlanError as exc:
        exc.source = source
        raise
    return plan_from_data(data, source)


def plan_from_data(data: Any, source: str = "<plan>") -> Plan:
    if data is None:
        raise PlanError("the plan is empty", source=source)
    try:
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(describe_validation_error(exc), source=source) from None
    except RecursionError:
        raise PlanError("the plan is nested too deeply", source=source) from None
    for message in plan_warnings(plan):
        warnings.warn(f"{source}: {message}", PlanWarning, stacklevel=2)
    return plan


def key_path(loc: tuple) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in ("function-after[_parse, Num]",) or "[" in str(part) and "(" in str(part):
            continue  # pydantic's internal names of union branches
        else:
            path += f".{part}" if path else str(part)
    return path


def describe_validation_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        parent, name = key_path(loc[:-1]), loc[-1]
        return f"`{parent}`: missing required key `{name}`" if parent else f"missing required key `{name}`"
    if error["type"] == "string_pattern_mismatch":
        message = f"{error['input']!r} must match {error['ctx']['pattern']}"
    elif error["type"] in ("literal_error", "string_type", "bool_type", "date_from_datetime_parsing",
                           "date_parsing", "dict_type", "list_type", "too_long", "too_short",
                           "string_too_long", "string_too_short"):
        message = f"{message} (got {error['input']!r:.60})"
    path = key_path(loc)
    return f"`{path}`: {message}" if path else message


def plan_warnings(plan: Plan) -> list[str]:
    found = []
    for i, workload in enumerate(plan.workloads):
        gpu = CATALOG.get(workload.gpu)
        if workload.peak_tflops is not None and gpu is not None:
            for value in {workload.peak_tflops.low, workload.peak_tflops.base, workload.peak_tflops.high}:
                if value >= 1.9 * gpu.dense_bf16_tflops:
                    found.append(f"`workloads[{i}].peak_tflops` {value:g} is about twice the dense BF16 "
                                 f"peak of {gpu.id} ({gpu.dense_bf16_tflops:g}): a sparse figure?")
                    break
        if workload.mfu is not None and workload.mfu.high > MFU_WARNING:
            found.append(f"`workloads[{i}].mfu` {workload.mfu.high:g} is above {MFU_WARNING:g}: "
                         "published large runs reach 0.35-0.55")
    return found
