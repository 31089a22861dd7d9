"""Charts that tell the truth (issue 25): read from the written chart parts of every template.

Straight lines (LibreOffice smooths a line series with no `smooth` element, and a smoothed
cumulative curve dips after its peak month), value axes from zero (the tornado's swings cross zero:
its axis is centred on the base case by construction), currency on every value axis, text
categories as text.
"""

from __future__ import annotations

import re
import zipfile

import pytest

from budgetbook.planfile.loader import plan_from_text, resolve, template_names
from budgetbook.sheetkit.formats import prefix
from budgetbook.workbook.write import write_workbook


@pytest.mark.parametrize("template", template_names())
def test_every_chart_is_straight_from_zero_in_currency_with_text_categories(tmp_path, template):
    text = resolve(template)[1]
    plan = plan_from_text(text, template)
    with zipfile.ZipFile(write_workbook(plan, text, tmp_path / "book.xlsx")) as z:
        charts = [z.read(n).decode() for n in sorted(z.namelist()) if re.fullmatch(r"xl/charts/chart\d+\.xml", n)]
        drawings = [z.read(n) for n in z.namelist() if re.fullmatch(r"xl/drawings/drawing\d+\.xml", n)]
    # prefixed as Excel writes them (ExcelJS reads `xdr:wsDr` and nothing else, exceljs#2591)
    assert drawings and all(b"<xdr:wsDr " in d and b"<xdr:oneCellAnchor>" in d for d in drawings)
    assert all("<c:chartSpace " in chart for chart in charts)
    charts = [re.sub(r"<(/?)c:", r"<\1", chart) for chart in charts]
    assert len(charts) >= 3
    lines = 0
    for chart in charts:
        for block in re.findall(r"<lineChart>.*?</lineChart>", chart, re.S):
            series = re.findall(r"<ser>.*?</ser>", block, re.S)
            lines += len(series)
            assert all('<smooth val="0" />' in s for s in series), "a line series without smooth=0"
        tornado = "What moves the total most" in chart
        for axis in re.findall(r"<valAx>.*?</valAx>", chart, re.S):
            assert tornado or '<min val="0" />' in axis, "a value axis not from zero"
            (code,) = re.findall(r'<numFmt formatCode="([^"]*)"', axis)
            assert prefix(plan.currency) in code, code
        assert "<cat><numRef>" not in chart and "<cat><strRef>" in chart
    assert lines >= 3  # the cumulative spend lines, the P10/P90 marks


def test_a_control_character_in_a_market_label_leaves_every_chart_readable(tmp_path):
    """A label holding an escape sequence made the cumulative-spend chart part ill-formed XML (generate
    failed in the drawing pass, the book could not be read); it is `?` there, as in a cell."""
    from xml.etree import ElementTree

    from budgetbook.planfile.loader import template_text
    from budgetbook.review.check import check_workbook

    text = template_text("finetune-13b-lora")
    text = text.replace("label: Hyperscaler (on-demand)", 'label: "Hyper\\e]0;x\\ascaler"', 1)
    assert "\\e]0;x" in text
    out = tmp_path / "escaped.xlsx"
    write_workbook(plan_from_text(text), text, out)
    with zipfile.ZipFile(out) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/")]
        assert charts
        for name in charts:
            ElementTree.fromstring(z.read(name))  # well-formed
        assert any(b"Hyper?]0;x?scaler" in z.read(n) for n in charts)
    assert check_workbook(out).ok
