"""Pictures from the commands (issue 26, item 3): `simulate --plot`, `variance --plot`, `diff --format html`.

Real files through the real entry point, drawn by real matplotlib, read back: a PNG is decoded (Pillow,
matplotlib's own dependency), an SVG parsed; matplotlib writes each text it draws as paths under an
XML comment holding the text, so the labels and figures a chart shows are read from there. The bridge
is held to the reference model: `show` of the two sides gives its ends, and an input changed alone
moves the total by exactly its one step.
"""

from __future__ import annotations

import base64
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_run import run, sha

from budgetbook.api import diff_bridge, diff_budgets, show_plan
from budgetbook.planfile.loader import template_text

ROOT = Path(__file__).resolve().parents[2]
ACTUALS = ROOT / "samples" / "pretrain-7b-actuals.xlsx"
PT = "pretrain-7b"
MFU = "mfu: {low: 0.45, base: 0.50, high: 0.55}"
DECENTRAL_PRICE = "H100_SXM: {low: 1.80, base: 1.80, high: 2.13}"


def svg_texts(data: bytes) -> str:
    ET.fromstring(data)  # well-formed
    return " ".join(re.findall(r"<!-- (.*?) -->", data.decode()))


def edited(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    text = template_text(PT)
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "edited.yaml"
    path.write_text(text)
    return path


def test_simulate_plot_png_and_svg(capsys, tmp_path):
    png, svg = tmp_path / "sim.png", tmp_path / "sim.svg"
    code, out, err = run(capsys, "simulate", PT, "-n", "3000", "--plot", png)
    assert code == 0 and f"Wrote {png}" in err
    from PIL import Image

    with Image.open(png) as image:
        assert image.format == "PNG" and image.width > 800 and image.height > 400
    code, out, err = run(capsys, "simulate", PT, "-n", "3000", "--plot", svg, "--format", "json")
    assert code == 0
    import json

    markets = json.loads(out)["markets"]  # stdout is the JSON alone, the picture said on stderr
    texts = svg_texts(svg.read_bytes())
    for label, market in (("Neo-cloud", "neo_cloud"), ("Decentralized market", "decentralized_market")):
        stats = markets[market]
        assert f"{label}: P10 ${stats['p10']:,.0f}, P50 ${stats['p50']:,.0f}, P90 ${stats['p90']:,.0f}" in texts
    assert "3,000 samples" in texts
    first = svg.read_bytes()  # the same input draws the same bytes (no date, a fixed hash salt)
    run(capsys, "simulate", PT, "-n", "3000", "--plot", svg)
    assert svg.read_bytes() == first


def test_variance_plot_stops_at_the_last_billed_month(capsys, tmp_path):
    svg = tmp_path / "variance.svg"
    before = sha(ACTUALS)
    code, out, err = run(capsys, "variance", ACTUALS, "--plot", svg, "--threshold", "1000000")
    assert code == 0 and sha(ACTUALS) == before
    texts = svg_texts(svg.read_bytes())
    assert "plan vs bills, 2 of 6 months billed" in texts and "last billed month" in texts
    assert "Hyperscaler (committed): plan" in texts and "Hyperscaler (committed): actual" in texts
    from budgetbook.api import book_variance
    from budgetbook.output.charts import variance_series

    report = book_variance(ACTUALS)
    total = next(line for line in report.lines if line.item == "total")
    # the plan's line has a point per month, the actual's one per billed month: the bills' own totals
    assert variance_series(report) == [("Hyperscaler (committed)", total.plan, total.actual[:2])]
    assert len(total.plan) == 6 and sum(total.actual[:2]) == pytest.approx(total.totals()["actual"])


def test_diff_html_bridge_adds_up_to_the_reference(capsys, tmp_path):
    plan = edited(tmp_path, (MFU, "mfu: {low: 0.40, base: 0.45, high: 0.50}"),
                  (DECENTRAL_PRICE, "H100_SXM: {low: 1.80, base: 2.00, high: 2.13}"))
    result = diff_budgets(PT, str(plan))
    found = diff_bridge(result)
    old, new = show_plan(PT), show_plan(plan)
    assert found.market == "decentralized_market"  # the new side's cheapest
    assert found.old == old.value("total_decentralized_market") and found.new == new.value("total_decentralized_market")
    assert sum(s.delta for s in found.steps) == pytest.approx(found.new - found.old, abs=0.01)
    assert len(found.steps) == 2 and all(s.delta > 0 for s in found.steps)
    # the first step is the price alone (the diff lists it first): the reference model's total with it alone
    alone = show_plan(edited(tmp_path, (DECENTRAL_PRICE, "H100_SXM: {low: 1.80, base: 2.00, high: 2.13}")))
    assert found.steps[0].delta == pytest.approx(alone.value("total_decentralized_market") - found.old, abs=0.01)
    plan = edited(tmp_path, (MFU, "mfu: {low: 0.40, base: 0.45, high: 0.50}"),
                  (DECENTRAL_PRICE, "H100_SXM: {low: 1.80, base: 2.00, high: 2.13}"))
    code, out, err = run(capsys, "diff", PT, plan, "--format", "html")
    assert code == 0 and out.startswith("<!DOCTYPE html>") and "http" not in out.replace(
        "http://www.w3.org", "")  # nothing to fetch
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', out)
    assert len(images) == 1
    texts = svg_texts(base64.b64decode(images[0]))
    assert f"${found.old:,.0f}" in texts and f"${found.new:,.0f}" in texts
    assert "Decentralized market price per GPU-hour" in texts and "old total" in texts
    assert "<td>Decentralized market</td>" in out and "decentralized_market</td>" not in out


def test_picture_refusals_are_one_line(capsys, tmp_path, monkeypatch):
    code, out, err = run(capsys, "simulate", PT, "--plot", tmp_path / "sim.pdf")
    assert code == 2 and "expected a file ending in .png or .svg" in err and len(err.strip().splitlines()) == 1
    before = sha(ACTUALS)
    code, out, err = run(capsys, "variance", ACTUALS, "--plot", ACTUALS.with_suffix(".xlsx"))
    assert code == 2 and sha(ACTUALS) == before
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as where the `plots` extra is not installed
    monkeypatch.delitem(sys.modules, "budgetbook.output.charts", raising=False)
    import budgetbook.output

    monkeypatch.delattr(budgetbook.output, "charts", raising=False)
    for args in (("simulate", PT, "--plot", tmp_path / "sim.svg"), ("diff", PT, PT, "--format", "html")):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and "pip install 'budgetbook[plots]'" in err, err
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "sim.svg").exists()
