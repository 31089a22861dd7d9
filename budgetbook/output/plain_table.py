"""A rich `Table`'s text for a stream that is not a terminal, without rich's rendering of every cell.

`show`'s physics table has a row per workload and market (500 at 100x5): rich measures and renders
each of its ~4,500 cells through a stack of renderables, ~0.4 CPU s of `show PLAN`'s ~1.8. Where
nothing is styled (not a terminal: rich writes no colour codes) and every cell is one line of
printable ASCII, the same text is worked out here: rich's column widths (its own `_collapse_widths`
and `ratio_reduce` where the table is too wide), each cell padded and justified as rich pads it,
rich's box characters; a cell wider than its column (a long market label) is rendered by rich itself,
which wraps and folds it. Any other table, text or stream gives None, and the caller prints the table
with rich. `tests/output/test_plain_table.py` holds the text equal to rich's on drawn tables.
"""

from __future__ import annotations

import re
from typing import Any

# what `Console.render_str` would read as markup (`[bold]`) or an emoji code (`:smile:`), in a str cell
_MARKUP_LIKE = re.compile(r"\[|:\S*?:")


def _plain(value: Any) -> str | None:
    """The cell's text where rich renders it as it is: one line of printable ASCII, nothing to interpret."""
    from rich.text import Text

    if isinstance(value, Text):
        if value.justify is not None or value.overflow is not None or value.no_wrap is not None or value.end != "\n":
            return None
        text = value.plain
    elif isinstance(value, str):
        if _MARKUP_LIKE.search(value):
            return None
        text = value
    else:
        return None
    return text if text.isascii() and (text.isprintable() or not text) else None


def _supported(table: Any) -> bool:
    """The table uses nothing but what `table_text` lays out (styles aside: off a terminal they print nothing)."""
    return (table.box is not None and table.show_header and not table.show_footer and table.show_edge
            and not table.show_lines and not table.leading and not table.expand and table.width is None
            and table.min_width is None and table.caption is None and tuple(table.padding) == (0, 1, 0, 1)
            and table.pad_edge and not table.collapse_padding and table.title_justify == "left"
            and bool(table.columns)
            and all(c.width is None and c.min_width is None and c.max_width is None and c.ratio is None
                    and c.vertical == "top" and c.justify in ("left", "right") and c.overflow in ("fold", "ellipsis")
                    and not c.footer for c in table.columns))


def table_text(table: Any, console: Any) -> str | None:
    """The text `console.print(table)` writes, or None where it cannot be had here (print it with rich)."""
    from rich._ratio import ratio_reduce
    from rich.padding import Padding

    if console.is_terminal or not _supported(table):
        return None
    columns = table.columns
    cells = [[column.header, *column._cells] for column in columns]
    texts = [[_plain(value) for value in column] for column in cells]
    if any(text is None for column in texts for text in column):
        return None
    title = None if not table.title else _plain(table.title)
    if table.title and title is None:
        return None
    options = console.options
    room = options.max_width - (len(columns) + 1)  # the table's width less its borders
    if room < 3 * len(columns):
        return None
    longest = [max(len(text) for text in column if text is not None) for column in texts]
    widths = [min(n + 2, room) or 1 for n in longest]
    if sum(widths) > room:
        widths = table._collapse_widths(widths, [not c.no_wrap for c in columns], room)
        if sum(widths) > room:
            widths = ratio_reduce(sum(widths) - room, [1] * len(widths), widths, widths)
        if min(widths) < 3:
            return None
        widths = [min(n + 2, width) for n, width in zip(longest, widths, strict=True)]
    table_width = sum(widths) + len(columns) + 1
    if title is not None and len(title) > table_width:
        return None
    box = table.box.substitute(options, safe=console.safe_box if table.safe_box is None else table.safe_box)

    def cell_lines(value: Any, text: str, width: int, column: Any) -> list[str]:
        if len(text) <= width - 2:
            return [" " + (text.ljust if column.justify == "left" else text.rjust)(width - 2) + " "]
        shown = options.update(width=width, justify=column.justify, no_wrap=column.no_wrap,
                               overflow=column.overflow, height=None, highlight=column.highlight)
        return ["".join(segment.text for segment in line)
                for line in console.render_lines(Padding(value, (0, 1)), shown)]

    out = [] if title is None else [title.ljust(table_width)]
    out.append(box.get_top(widths))
    count = len(table.rows) + 1
    for index in range(count):
        row = [cell_lines(cells[c][index], texts[c][index], widths[c], columns[c])  # type: ignore[arg-type]
               for c in range(len(columns))]
        height = max(len(lines) for lines in row)
        blank = [[" " * width] for width in widths]
        if index == 0:  # the header sits at the bottom of its row, the others at the top
            row = [blank[c] * (height - len(lines)) + lines for c, lines in enumerate(row)]
        else:
            row = [lines + blank[c] * (height - len(lines)) for c, lines in enumerate(row)]
        left, divider, right = ((box.head_left, box.head_vertical, box.head_right) if index == 0 else
                                (box.foot_left, box.foot_vertical, box.foot_right) if index == count - 1 else
                                (box.mid_left, box.mid_vertical, box.mid_right))
        out.extend(left + divider.join(lines[n] for lines in row) + right for n in range(height))
        if index == 0:
            out.append(box.get_row(widths, "head", edge=True))
        elif table.rows[index - 1].end_section and index < count - 1:
            out.append(box.get_row(widths, "row", edge=True))
    out.append(box.get_bottom(widths))
    return "\n".join(out) + "\n"


def print_table(table: Any, console: Any) -> None:
    """`console.print(table)`, its text worked out here where it can be (`table_text`)."""
    text = table_text(table, console)
    if text is None:
        console.print(table)
        return
    console.file.write(text)
    console.file.flush()
