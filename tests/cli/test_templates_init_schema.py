"""`templates`, `init` and `schema`, and the package installed the way a user installs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run

from budgetbook.planfile.loader import load_plan, template_names, template_text
from budgetbook.planfile.schema import plan_schema

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_TEMPLATES = ["deepseek-v3", "finetune-13b-lora", "pretrain-7b"]  # names are contract
TEMPLATES = ["deepseek-v3", "finetune-13b-lora", "lab-year", "own-vs-rent", "pretrain-7b", "support-assistant"]


def test_templates_lists_one_a_line_with_description(capsys):
    code, out, _ = run(capsys, "templates")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == TEMPLATES == template_names()
    assert set(CONTRACT_TEMPLATES) <= set(TEMPLATES)
    for line in lines:
        name, description = line.split(None, 1)
        assert description.strip() == load_plan(name).description


def test_init_writes_the_commented_template(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "init", "pretrain-7b") == (0, "", "Wrote pretrain-7b.yaml\nWrote plan.schema.json\n")
    written = tmp_path / "pretrain-7b.yaml"
    assert written.read_text() == template_text("pretrain-7b")
    assert "# seed 000" in written.read_text()
    # the schema its modeline points to, beside it: what `budgetbook schema` prints
    assert written.read_text().startswith("# yaml-language-server: $schema=plan.schema.json\n")
    assert (tmp_path / "plan.schema.json").read_text() == run(capsys, "schema")[1]
    (tmp_path / "plan.schema.json").write_text("{}")  # the user's own: kept
    code, _, err = run(capsys, "init", "deepseek-v3", "-o", "p.yaml")
    assert (code, err) == (0, "Wrote p.yaml\nKept the existing plan.schema.json\n")
    assert load_plan(tmp_path / "p.yaml").name == "deepseek-v3" and (tmp_path / "plan.schema.json").read_text() == "{}"
    # no temp files left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml", "plan.schema.json", "pretrain-7b.yaml"]


def test_init_refuses_to_overwrite_without_force(tmp_path, capsys):
    target = tmp_path / "plan.yaml"
    target.write_text("mine\n")
    code, _, err = run(capsys, "init", "pretrain-7b", "-o", target)
    assert (code, err) == (2, f"Error: {target}: already exists; pass --force to overwrite it\n")
    assert target.read_text() == "mine\n"
    assert run(capsys, "init", "pretrain-7b", "-o", target, "--force")[0] == 0
    assert target.read_text() == template_text("pretrain-7b")


def test_init_unknown_template_and_missing_directory(tmp_path, capsys):
    code, _, err = run(capsys, "init", "finetune-13b", "-o", tmp_path / "x.yaml")
    assert code == 2 and "did you mean `finetune-13b-lora`?" in err
    # case and - or _ are what people misremember: PRETRAIN_7B is pretrain-7b
    code, _, err = run(capsys, "init", "PRETRAIN_7B", "-o", tmp_path / "x.yaml")
    assert code == 2 and "did you mean `pretrain-7b`?" in err
    code, _, err = run(capsys, "sensitivity", "pretrain-7b", "--market", "neocloud")
    assert code == 2 and "did you mean `neo_cloud`?" in err and len(err.splitlines()) == 1
    code, _, err = run(capsys, "init", "pretrain-7b", "-o", tmp_path / "no" / "x.yaml")
    assert code == 2 and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def test_schema_is_the_plan_json_schema(capsys):
    code, out, _ = run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    assert schema == plan_schema()
    assert schema["$schema"].startswith("https://json-schema.org/") and schema["title"] == "budgetbook plan"
    assert {"markets", "workloads"} <= set(schema["required"])
    mfu = schema["$defs"]["Workload"]["properties"]["mfu"]["anyOf"][0]
    assert "greater than 0 and at most 1" in mfu["description"]


def test_templates_validate_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from budgetbook.plan.yamlsafe import parse_yaml_text

    for name in template_names():
        data = json.loads(json.dumps(parse_yaml_text(template_text(name)), default=str))
        jsonschema.validate(data, plan_schema())


@pytest.mark.skipif(not os.environ.get("CI") and not os.environ.get("BUDGETBOOK_SLOW"),
                    reason="slow (~30 s): builds a fresh venv; runs in CI or with BUDGETBOOK_SLOW=1")
def test_pip_install_non_editable_then_run_from_empty_folder(tmp_path):
    venv = tmp_path / "venv"
    # system site packages: the dependencies are already installed, so no network is needed
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", "*.egg-info", "build", "__pycache__",
                                                             ".pytest_cache", ".hypothesis"))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, str(src)], check=True, cwd=tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    exe = str(venv / "bin" / "budgetbook")

    def run_installed(*args: str) -> str:
        done = subprocess.run([exe, *args], cwd=empty, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "pretrain-7b" in run_installed("templates")
    run_installed("init", "pretrain-7b", "-o", "p.yaml")
    assert "Total development cost" in run_installed("show", "p.yaml")
    probe = [str(venv / "bin" / "python"), "-c", "import budgetbook; print(budgetbook.__file__)"]
    located = subprocess.run(probe,
                             cwd=empty, capture_output=True, text=True, check=True).stdout
    assert str(venv) in located, located  # the installed copy, not the working tree
