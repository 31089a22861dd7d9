"""One self-contained HTML page: its skeleton, its print CSS and the escaping every text in it goes through.

`diff --format html` and `report` write pages a reviewer opens from a CI artefact or an e-mail, so a
page fetches nothing: the styles are inline, each chart an `<img>` of a `data:` SVG (drawn by
`output/charts.py`; an image keeps each SVG's ids to itself, where two inline `<svg>` would share
them), and there is no script. Printed, it fits A4 and Letter alike: the page box is left to the
printer (`@page` sets margins only), the content is never wider than A4's 210 mm less 2 x 15 mm, and
a figure or a table row is not split across pages. Every text from a plan or workbook is escaped
(`esc`), after `plaintext.visible`, so a label cannot inject markup.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable

from .plaintext import visible

PRINT_WIDTH_MM = 180  # A4's 210 mm less two 15 mm margins; Letter's 215.9 mm is wider, so it fits both

CSS = f"""
:root {{ color-scheme: light; }}
body {{ font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1a1a1a;
  max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }}
h1 {{ font-size: 1.5rem; margin-bottom: .2rem; }} h2 {{ font-size: 1.15rem; margin-top: 2rem;
  border-bottom: 1px solid #ddd; padding-bottom: .2rem; }}
.meta {{ color: #555; margin-top: 0; }} .decision {{ font-size: 1.05rem; background: #f3f6fa;
  border-left: 4px solid #1f77b4; padding: .6rem .8rem; }}
.bad {{ color: #b00020; font-weight: 600; }} .ok {{ color: #1b7a2e; font-weight: 600; }}
table {{ border-collapse: collapse; margin: .6rem 0; font-variant-numeric: tabular-nums; font-size: .9rem; }}
th, td {{ padding: .25rem .6rem; border-bottom: 1px solid #e4e4e4; vertical-align: top; }}
th {{ text-align: left; background: #fafafa; }} td.n, th.n {{ text-align: right; }} td.n {{ white-space: nowrap; }}
td:first-child {{ min-width: 10rem; }}
tr.total td {{ font-weight: 600; }}
figure {{ margin: 1rem 0; }} figure img {{ max-width: 100%; height: auto; }}
figcaption {{ color: #555; font-size: .85rem; }}
@page {{ margin: 15mm; }}
@media print {{
  body {{ max-width: {PRINT_WIDTH_MM}mm; margin: 0; padding: 0; font-size: 10pt; }}
  h2 {{ break-after: avoid; }} figure, tr {{ break-inside: avoid; }}
  table {{ max-width: 100%; font-size: 8pt; }} th, td {{ padding: .12rem .3rem; }}
  td:first-child {{ min-width: 0; }} .decision {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
}}
"""


def esc(text: object) -> str:
    """Text as HTML: control characters shown (`visible`), markup characters escaped."""
    return html.escape(visible(text), quote=True)


def page(title: str, body: Iterable[str]) -> str:
    """The whole document: `title` (plain text) and `body`, HTML already escaped by its makers."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def figure(svg: bytes, alt: str, caption: str = "") -> str:
    """A chart: its SVG as a `data:` image (nothing fetched), its text alternative, a caption."""
    data = base64.b64encode(svg).decode("ascii")
    note = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{esc(alt)}" src="data:image/svg+xml;base64,{data}">{note}</figure>'


def table(header: list[str], rows: Iterable[list[str]], numeric: Iterable[int] = (),
          totals: Iterable[int] = ()) -> str:
    """A table of text cells (escaped here); the columns in `numeric` right-aligned, the rows in `totals` bold."""
    right, bold = set(numeric), set(totals)
    cls = lambda i: ' class="n"' if i in right else ""  # noqa: E731
    head = "".join(f"<th{cls(i)}>{esc(h)}</th>" for i, h in enumerate(header))
    total = ' class="total"'
    body = "".join(f"<tr{total if n in bold else ''}>"
                   + "".join(f"<td{cls(i)}>{esc(c)}</td>" for i, c in enumerate(row)) + "</tr>"
                   for n, row in enumerate(rows))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
