"""`budgetbook.api`: each command as a library call that returns its result, prints nothing, raises one-line errors."""

from __future__ import annotations

import pytest
from cli_run import sha

from budgetbook import api
from budgetbook.errors import OutputError, UsageError
from budgetbook.planfile.loader import template_names, template_text
from budgetbook.planfile.schema import plan_schema
from budgetbook.review.sides import Unreadable

FT = "finetune-13b-lora"


def test_every_command_as_a_call(tmp_path, capsys):
    assert [name for name, _ in api.list_templates()] == template_names()
    plan = api.init_plan(FT, tmp_path / "plan.yaml")
    assert plan.read_text() == template_text(FT)
    assert api.show_plan(plan).as_json() == api.show_plan(FT).as_json() == api.show_plan().as_json()
    book = api.generate_workbook(plan, tmp_path / "plan.xlsx")
    report = api.check_workbook(book)
    assert report.ok and report.findings == [] and len(report.figures) == 32  # 8 figures and 8 of the gap x 2 markets
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


def test_every_command_is_an_api_call_that_returns_data(tmp_path, capsys):
    """sensitivity, simulate, actuals, variance and textconv too: data back, nothing printed."""
    from focus_bills import PAYROLL

    from budgetbook.planfile.loader import load_plan
    from budgetbook.ranges.sensitivity import sensitivity
    from budgetbook.ranges.simulate import simulate
    from budgetbook.review.sides import Side

    plan = load_plan("pretrain-7b")
    assert api.sensitivity("pretrain-7b").as_json() == sensitivity(plan).as_json()
    assert api.sensitivity("pretrain-7b", "neo_cloud").market == "neo_cloud"
    assert api.simulate("pretrain-7b", 500, 3, "pert").as_json() == simulate(plan, 500, 3, "pert").as_json()
    book = api.generate_workbook("pretrain-7b", tmp_path / "p.xlsx")
    (tmp_path / "payroll.csv").write_text(PAYROLL)
    result = api.import_actuals(book, [tmp_path / "payroll.csv"], tmp_path / "a.xlsx")
    assert result.written == tmp_path / "a.xlsx" and sum(b.total for b in result.imported) == 401750
    report = api.book_variance(result.written)
    assert sum(line.totals()["actual"] for line in report.lines if line.item == "people") == 401750
    found, problem = api.budget_text(str(book))
    assert isinstance(found, Side) and problem is None and found.plan.name == "pretrain-7b"
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [broken\n")
    found, problem = api.budget_text(str(broken))
    assert isinstance(found, Unreadable) and found.text == "name: [broken\n" and "invalid YAML" in problem
    assert capsys.readouterr() == ("", "")


def test_strict_is_a_parameter_not_ambient_state(tmp_path):
    """`strict` refuses a plan with warnings where it is passed, and nowhere else (no state left behind)."""
    from budgetbook.errors import PlanError

    plan = tmp_path / "plan.yaml"
    plan.write_text(template_text(FT).replace("ideal_gpu_hours: 30000", "ideal_gpu_hours: 30000\n    mfu: 0.9")
                    .replace("utilization: {low: 1.5, base: 1.6, high: 1.8}", ""))
    with pytest.warns(UserWarning, match="mfu"):
        assert api.show_plan(plan).plan == FT
    for call in (lambda: api.show_plan(plan, strict=True), lambda: api.show_months(plan, strict=True),
                 lambda: api.calibrate_plan(plan, strict=True),
                 lambda: api.generate_workbook(plan, tmp_path / "x.xlsx", strict=True)):
        with pytest.warns(UserWarning), pytest.raises(PlanError, match="--strict makes them errors"):
            call()
    assert not (tmp_path / "x.xlsx").exists()
    with pytest.warns(UserWarning):
        assert api.calibrate_plan(plan)["plan"] == FT  # the refusal held for that call only
