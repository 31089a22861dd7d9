"""`budgetbook report` in a real headless Chromium (issue 26, item 2): every template and the sample actuals
workbook, in one browser process.

Each page must load with no console error, no exception and no request but its own file and its `data:`
images (nothing fetched when a reviewer opens it from an e-mail); every chart must decode to a real
image; laid out for print in A4's 180 mm inside its margins, nothing is wider; printed to PDF on A4 and on
Letter, each page has that paper's size. The page's words are the reference model's: the decision line
`show` prints, each market's total.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chromium import Chromium, chromium_binary
from cli_run import run, sha

from budgetbook.api import budget_report
from budgetbook.output.report_html import report_page
from budgetbook.output.show import decision_line, money
from budgetbook.planfile.loader import template_names

pytestmark = pytest.mark.skipif(chromium_binary() is None, reason="needs Debian's chromium (README's apt line)")
ROOT = Path(__file__).resolve().parents[2]
ACTUALS = ROOT / "samples" / "pretrain-7b-actuals.xlsx"
SAMPLES = 2_000  # the distributions need no more to be drawn; the suite's budget
MM = 96 / 25.4   # CSS pixels per millimetre
PAPERS = {"A4": ((8.27, 11.69), (595.92, 842.88)), "Letter": ((8.5, 11.0), (612.0, 792.0))}  # inches; PDF points


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    out = {}
    for source in [*template_names(), str(ACTUALS)]:
        report = budget_report(source, samples=SAMPLES)
        path = folder / f"{Path(source).stem}.html"
        path.write_text(report_page(report), encoding="utf-8")
        out[source] = (report, path)
    return out


@pytest.fixture(scope="module")
def browser():
    chromium = Chromium()
    yield chromium
    chromium.close()


def test_every_report_renders_without_errors_and_with_its_charts(pages, browser):
    for source, (report, path) in pages.items():
        page = browser.open(path)
        assert page.errors == [], (source, page.errors)
        assert [url for url in page.requests if not url.startswith(("file:", "data:"))] == [], source
        images = browser.images(page)
        ranged = report.simulation is not None
        expected = 1 + 2 * ranged + (report.variance is not None)  # cash flow, tornado, distributions, variance
        assert len(images) == expected, (source, images)
        for image in images:  # decoded by the browser, and laid out at a readable size
            assert image["complete"] and image["natural"] > 300 and image["width"] > 300, (source, image)
            assert image["src"].startswith("data:image/svg+xml"), source
        text = browser.evaluate(page, "document.body.innerText")
        assert " ".join(decision_line(report.breakdown).split()) in " ".join(text.split()), source
        for figure in (f for f in report.breakdown.figures if f.item == "total"):
            assert money(figure.value, report.breakdown.currency) in text, (source, figure.market)
        if report.check is not None:
            assert report.check.ok, source  # the sample checks OK, and the page says so with the count
            assert f"OK: {len(report.check.figures)} figures agree with the reference model" in text
            assert "Plan vs bills, months billed 2026-01 to 2026-02 of 2026-06." in text


def test_the_report_prints_on_a4_and_letter(pages, browser, tmp_path):
    _, path = pages[str(ACTUALS)]
    page = browser.open(path)
    inside = round(180 * MM)  # A4's 210 mm less the page's two 15 mm margins; Letter is wider
    assert browser.print_width(page, inside) <= inside
    for paper, ((width, height), box) in PAPERS.items():
        pdf = browser.pdf(page, width, height)
        assert pdf.startswith(b"%PDF")
        boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
        assert len(boxes) >= 2, paper  # more than one page, each the paper's size
        assert all(abs(float(w) - box[0]) < 1 and abs(float(h) - box[1]) < 1 for w, h in boxes), (paper, boxes)
    shot = browser.screenshot(page)
    assert shot.startswith(b"\x89PNG")
    (tmp_path / "report.png").write_bytes(shot)


def test_report_command_writes_the_page_and_never_over_its_input(capsys, tmp_path):
    out = tmp_path / "report.html"
    code, stdout, err = run(capsys, "report", "finetune-13b-lora", "-o", out, "--samples", "500")
    assert code == 0 and stdout == "" and f"Wrote {out}" in err
    assert out.read_text().startswith("<!DOCTYPE html>")
    before = sha(ACTUALS)
    code, stdout, err = run(capsys, "report", ACTUALS, "-o", ACTUALS)
    assert code == 2 and "would overwrite the input file" in err and sha(ACTUALS) == before
