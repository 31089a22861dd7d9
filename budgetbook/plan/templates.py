"""The built-in templates: their names, text and one-line descriptions.

Apart from the loader so `budgetbook templates` reads three YAML files and
imports no plan model (pydantic and the line-item registry cost ~0.2 s).
"""

from __future__ import annotations

from importlib import resources

from ..errors import UsageError
from .yamlsafe import parse_yaml_text


def _templates_dir():
    return resources.files("budgetbook.templates")


def template_names() -> list[str]:
    return sorted(p.name[: -len(".yaml")] for p in _templates_dir().iterdir() if p.name.endswith(".yaml"))


def template_text(name: str) -> str:
    if name not in template_names():
        from .model import suggest  # on first use, not at import: loads pydantic, pydantic_core

        raise UsageError(f"no template named `{name}`{suggest(name, template_names())} "
                         f"(templates: {', '.join(template_names())})")
    return _templates_dir().joinpath(f"{name}.yaml").read_text(encoding="utf-8")


def template_description(name: str) -> str:
    return str(parse_yaml_text(template_text(name)).get("description", "")).strip().splitlines()[0]
