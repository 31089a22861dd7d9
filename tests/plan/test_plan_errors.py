"""Every way a plan can be bad ends in one line on stderr, exit code 2, and an untouched file."""

from __future__ import annotations

from pathlib import Path

import pytest

from budgetbook.cli import main
from budgetbook.planfile.loader import template_text

BASE = template_text("finetune-13b-lora")


def _edit(old: str, new: str) -> bytes:
    assert old in BASE, old
    return BASE.replace(old, new, 1).encode()


def _bomb(levels: int, width: int) -> bytes:
    # billion laughs: each level repeats the previous one `width` times
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return ("\n".join(lines) + "\n").encode()


CASES = {
    "syntax": (_edit("utilization: {low: 1.5, base: 1.6, high: 1.8}", "utilization: {low: 1.5, base: 1.6"),
               "`workloads[0].utilization`", "invalid YAML"),
    "wrong_type": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: lots"),
                   "`workloads[0].ideal_gpu_hours`", "expected a number, got text 'lots'"),
    "negative": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: -30000"),
                 "`workloads[0].ideal_gpu_hours`", "greater than 0 and at most 1e12, got -30000"),
    "nan": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: .nan"),
            "`workloads[0].ideal_gpu_hours`", "finite number, got nan"),
    "infinity": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: .inf"),
                 "`workloads[0].ideal_gpu_hours`", "finite number, got inf"),
    "unknown_key": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hour: 30000"),
                    "`workloads[0].ideal_gpu_hour`", "did you mean `ideal_gpu_hours`?"),
    "missing_key": (_edit("    gpu: H100_SXM\n", ""), "`workloads[0].gpu`", "required key is missing"),
    "python_tag": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: !!python/object/apply:os.system ['true']"),
                   "`workloads[0].ideal_gpu_hours`", "`!!python/object/apply:os.system` is not allowed"),
    # any alias is refused (an edit through one would change them all), so a bomb stops at its first
    "alias_bomb": (_bomb(12, 10), "`l1[0]` (line 2)", "YAML aliases (`*l0`) are not allowed in plans"),
    "duplicate_key": (_edit("ideal_gpu_hours: 30000", "ideal_gpu_hours: 30000\n    ideal_gpu_hours: 40000"),
                      "`workloads[0].ideal_gpu_hours`", "duplicate key"),
    "non_utf8": (_edit("LoRA fine-tune, 13B", "LoRA fine-tune, 13B").replace(b"13B on", b"13B \xff on"),
                 "`workloads[0].label`", "byte 0xff is not UTF-8"),
    "ten_megabytes": (BASE.encode() + b"#" + b"x" * (10 * 1024 * 1024) + b"\n", "plan.yaml: ",
                      "plans are limited to 1,000,000 bytes"),
    "deeply_nested": (BASE.encode() + b"note: " + b"[" * 5000 + b"]" * 5000 + b"\n", "`note[0][0]",
                      "nested more than 40 levels deep"),
    "too_large_for_money": (_edit("monthly_cost: 40000 ", "monthly_cost: 1e300 "),
                            "`people.roles[0].monthly_cost`", "at most 1e8, got 1e300"),
    "bool_for_number": (_edit("count: 2 ", "count: yes "), "`people.roles[0].count`",
                        "expected a number, got a boolean"),
    "bad_choice": (_edit("kind: finetune", "kind: fine-tune"), "`workloads[0].kind`", "did you mean `finetune`?"),
    "missing_price": (_edit("H100_SXM: 1.80", "H100: 1.80"), "`markets[1].gpu_prices`",
                      "no price for GPU `H100_SXM`; did you mean `H100`?"),
    "bad_range": (_edit("waste: {low: 0.20, base: 0.25, high: 0.30}", "waste: {low: 0.20, base: 0.35, high: 0.30}"),
                  "`workloads[0].waste`", "low <= base <= high"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_plan_is_one_line_exit_2_and_file_unchanged(case, tmp_path, capsys, monkeypatch):
    content, key_path, detail = CASES[case]
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(content)
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    code = main(["show", "plan.yaml", "--format", "json"])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, captured.err
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("Error: plan.yaml: "), lines[0]
    assert key_path in lines[0] and detail in lines[0], lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert plan.read_bytes() == content
    assert not marker.exists()


def test_python_tag_is_never_executed(tmp_path, capsys):
    marker = tmp_path / "pwned"
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"name: !!python/object/apply:os.system ['touch {marker}']\n")
    assert main(["show", str(plan)]) == 2
    assert not marker.exists()
    assert "is not allowed" in capsys.readouterr().err


def test_missing_file_names_it(tmp_path, capsys):
    assert main(["show", str(tmp_path / "nope.yaml")]) == 2
    err = capsys.readouterr().err
    assert err == f"Error: {tmp_path / 'nope.yaml'}: no such file\n"


def test_unknown_template_suggests_one(capsys):
    assert main(["show", "pretrain-7"]) == 2
    assert "did you mean `pretrain-7b`?" in capsys.readouterr().err


def test_warning_is_one_line_and_still_shows(tmp_path, capsys):
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(_edit("utilization: {low: 1.5, base: 1.6, high: 1.8}", "mfu: 0.7"))
    for _ in range(2):  # a second run in one process warns again
        assert main(["show", str(plan), "--format", "json"]) == 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("Warning: ") and "`workloads[0].mfu` 0.7" in err[0]


def test_valid_plan_written_by_hand_still_loads(tmp_path, capsys):
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(BASE.encode())
    assert main(["show", str(plan), "--format", "csv"]) == 0
    assert Path(plan).read_text() == BASE
