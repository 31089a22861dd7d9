"""A plan whose workbook would lay out more than `MAX_CELLS_LAID_OUT` cells is refused (issue 27 case 7).

The caps on ids alone (20 markets, 500 workloads) let a plan lay out ~700,000 cells, past any memory
bound; the cap stops the layout as it passes, so nothing holds more. Shown with the cap lowered (the
real one admits the largest plans measured in docs/scale.md, 268,748 cells, which take a minute here).
"""

from __future__ import annotations

from cli_run import run

from budgetbook.sheetkit import grid


def test_a_plan_past_the_cap_is_refused_by_every_command(capsys, tmp_path, monkeypatch):
    plan, book = tmp_path / "pretrain-7b.yaml", tmp_path / "book.xlsx"
    code, _, err = run(capsys, "init", "pretrain-7b", "-o", plan)
    assert code == 0, err
    # a plan of its own: one of a template's content laid out by another test is remembered (`workbook.memo`)
    plan.write_text(plan.read_text().replace("name: ", f"name: cap-{tmp_path.name}-", 1))
    code, _, err = run(capsys, "generate", plan, "-o", book)
    assert code == 0, err
    monkeypatch.setattr(grid, "MAX_CELLS_LAID_OUT", 500)
    for args in (["show", plan], ["generate", plan, "-o", tmp_path / "new.xlsx"]):
        code, out, err = run(capsys, *args)
        line, = err.splitlines()
        assert code == 2 and out == "", args
        assert "pretrain-7b" in line and "over 500 cells (formulas and inputs)" in line, line
        assert "split the plan" in line, line
    assert not (tmp_path / "new.xlsx").exists()
    code, _, err = run(capsys, "check", book)
    line, = err.splitlines()
    assert code == 2 and f"{book}: its embedded plan is too large: its workbook would lay out over 500" in line, line


def test_the_cap_admits_the_templates():
    """Every template lays out well under the cap (the cap is not what a plan needs, it bounds what it cannot)."""
    from budgetbook.planfile.loader import load_plan, template_names
    from budgetbook.workbook.build import workbook_layout

    sizes = {name: len(workbook_layout(load_plan(name))) for name in template_names()}
    assert 0 < max(sizes.values()) < grid.MAX_CELLS_LAID_OUT // 20, sizes
