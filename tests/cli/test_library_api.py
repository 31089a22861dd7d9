"""`budgetbook.api`: each command as a library call that returns its result, prints nothing, raises one-line errors."""

from __future__ import annotations

import pytest
from cli_run import sha

from budgetbook import api
from budgetbook.errors import OutputError, UsageError
from budgetbook.planfile.loader import template_names, template_text
from budgetbook.planfile.schema import plan_schema

FT = "finetune-13b-lora"


def test_every_command_as_a_call(tmp_path, capsys):
    assert [name for name, _ in api.list_templates()] == template_names()
    plan = api.init_plan(FT, tmp_path / "plan.yaml")
    assert plan.read_text() == template_text(FT)
    assert api.show_plan(plan).as_json() == api.show_plan(FT).as_json() == api.show_plan().as_json()
    book = api.generate_workbook(plan, tmp_path / "plan.xlsx")
    report = api.check_workbook(book)
    assert report.ok and report.findings == [] and len(report.figures) == 12
    assert api.extract_plan(book) == template_text(FT)
    assert api.extract_plan(book, tmp_path / "back.yaml") == (tmp_path / "back.yaml").read_text()
    assert api.plan_schema() == plan_schema()
    assert capsys.readouterr() == ("", "")


def test_default_output_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert str(api.init_plan("pretrain-7b")) == "pretrain-7b.yaml"
    assert str(api.generate_workbook("pretrain-7b.yaml")) == "pretrain-7b.xlsx"


def test_refusals_are_errors_not_exits(tmp_path):
    plan = api.init_plan(FT, tmp_path / "plan.yaml")
    before = sha(plan)
    with pytest.raises(OutputError, match="already exists"):
        api.init_plan(FT, plan)
    with pytest.raises(OutputError, match="would overwrite the input file"):
        api.generate_workbook(plan, plan, force=True)
    with pytest.raises(UsageError, match="no template named"):
        api.init_plan("nope", tmp_path / "nope.yaml")
    assert sha(plan) == before
