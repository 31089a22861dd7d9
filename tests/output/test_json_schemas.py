"""One JSON envelope, one published schema per command (issue 26 item 5).

Every command's `--format json` over the templates, the sample workbooks and a handful of random
plans validates against its closed schema (`budgetbook schema --output COMMAND`), through
`cli_run.run`, which holds every JSON any test prints against it. The envelope opens every report;
the keys a command printed before it keep their names and values.
"""

from __future__ import annotations

import json
import typing
from enum import Enum
from pathlib import Path

import pytest
from cli_run import run
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator
from strategies import plans

from budgetbook import __version__
from budgetbook.cli import app
from budgetbook.output.schemas import COMMANDS
from budgetbook.plan.templates import template_names

SAMPLES = Path(__file__).parents[2] / "samples"
ACTUALS_BOOK = SAMPLES / "pretrain-7b-actuals.xlsx"
PLAN_COMMANDS = (("show",), ("show", "--by", "month"), ("calibrate",), ("sensitivity",), ("simulate", "-n", "200"))


def json_commands() -> set[str]:
    """The commands whose `--format` offers json, read from the CLI itself."""
    found = set()
    for command in app.registered_commands:
        hints = typing.get_type_hints(command.callback, include_extras=True)
        kind = typing.get_args(hints["format"])[0] if "format" in hints else None
        if isinstance(kind, type) and issubclass(kind, Enum) and "json" in kind.__members__:
            found.add(command.name or command.callback.__name__)
    return found


def report(capsys, *args) -> dict:
    code, out, err = run(capsys, *args, "--format", "json")  # `run` validates it against the schema
    assert code in (0, 1), err
    return json.loads(out)


def test_every_json_command_publishes_a_schema_that_is_a_schema(capsys):
    assert json_commands() == set(COMMANDS)
    for command in COMMANDS:
        code, out, err = run(capsys, "schema", "--output", command)
        assert code == 0, err
        schema = json.loads(out)
        Draft202012Validator.check_schema(schema)
        assert "command" not in schema  # the schema itself is a document, not a report
    code, out, err = run(capsys, "schema", "--output", "Chek")
    assert code == 2 and out == "" and "did you mean `check`?" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("template", template_names())
def test_every_plan_command_of_every_template_validates(capsys, template):
    for args in PLAN_COMMANDS:
        data = report(capsys, *args, template)
        assert data["command"] == args[0] and data["version"] == __version__
        assert data["plan"] == template


def test_the_envelope_keeps_the_keys_commands_had(capsys):
    show = report(capsys, "show")
    assert list(show)[:6] == ["command", "version", "plan", "currency", "markets", "figures"]
    check = report(capsys, "check", SAMPLES / "finetune-13b-lora.xlsx")
    assert list(check)[:6] == ["command", "version", "plan", "workbook", "currency", "ok"]
    assert check["workbook"] == str(SAMPLES / "finetune-13b-lora.xlsx") and check["plan"] == "finetune-13b-lora"
    gpus = report(capsys, "gpus")
    assert list(gpus) == ["command", "version", "gpus"]
    diff = report(capsys, "diff", "finetune-13b-lora", "pretrain-7b")
    assert (diff["plan"], diff["currency"], diff["old"]["plan"]) == ("pretrain-7b", "USD", "finetune-13b-lora")


def test_the_actuals_sample_validates(capsys):
    """(`actuals`' JSON, and check and diff of hostile books, validate in `test_output_escapes.py` through `run`.)"""
    check = report(capsys, "check", ACTUALS_BOOK)
    assert check["ok"] is True and check["currency"] == "USD"
    variance = report(capsys, "variance", ACTUALS_BOOK)
    assert variance["workbook"] == str(ACTUALS_BOOK) and variance["lines"]


# a handful of plans, whatever the profile: the reference model only
@settings(max_examples=4, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pair=plans())
def test_random_plans_validate(capsys, tmp_path, pair):
    path = tmp_path / "plan.yaml"
    path.write_text(pair[1])
    for args in PLAN_COMMANDS:
        report(capsys, *args, path)
