"""The sample pictures of `simulate --plot`, the `diff` bridge and `report`, which the README and docs show.

    python samples/pictures.py    # needs the `plots` extra and Debian's chromium

- `pretrain-7b-simulate.png`: `simulate pretrain-7b --plot` (10,000 samples, seed 0);
- `pretrain-7b-diff-bridge.png`: the bridge of `diff --format html` from pretrain-7b to the same plan with
  the decentralized market's H100 at $2.00 instead of $1.80 and the pretraining MFU 0.45 instead of 0.50
  (the change `tests/pictures` checks);
- `pretrain-7b-actuals-report.html`: `report samples/pretrain-7b-actuals.xlsx`, the page itself, and
  `pretrain-7b-actuals-report.png`, its screenshot in headless Chromium (the first 2,400 pixels).
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from chromium import Chromium  # noqa: E402

from budgetbook.api import budget_report, diff_bridge, diff_budgets, simulate  # noqa: E402
from budgetbook.output import charts  # noqa: E402
from budgetbook.output.report_html import report_page  # noqa: E402
from budgetbook.planfile.loader import template_text  # noqa: E402

EDITS = (("mfu: {low: 0.45, base: 0.50, high: 0.55}", "mfu: {low: 0.40, base: 0.45, high: 0.50}"),
         ("H100_SXM: {low: 1.80, base: 1.80, high: 2.13}", "H100_SXM: {low: 1.80, base: 2.00, high: 2.13}"))
SHOT_HEIGHT = 2400


def main() -> None:
    (HERE / "pretrain-7b-simulate.png").write_bytes(charts.distributions(simulate("pretrain-7b"), "png"))
    with tempfile.TemporaryDirectory() as folder:
        text = template_text("pretrain-7b")
        for old, new in EDITS:
            text = text.replace(old, new)
        edited = Path(folder) / "pretrain-7b.yaml"
        edited.write_text(text)
        found = diff_bridge(diff_budgets("pretrain-7b", str(edited)))
        assert found is not None
        (HERE / "pretrain-7b-diff-bridge.png").write_bytes(charts.bridge(found, "png"))
    page = HERE / "pretrain-7b-actuals-report.html"
    page.write_text(report_page(budget_report("samples/pretrain-7b-actuals.xlsx")), encoding="utf-8")
    browser = Chromium()
    try:
        shown = browser.open(page, width=1000, height=SHOT_HEIGHT)
        assert shown.errors == [], shown.errors
        shot = browser.send("Page.captureScreenshot", shown.session, format="png")["data"]
    finally:
        browser.close()
    (HERE / "pretrain-7b-actuals-report.png").write_bytes(base64.b64decode(shot))


if __name__ == "__main__":
    main()
