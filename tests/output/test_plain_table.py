"""`output.plain_table` writes what rich writes for a table, off a terminal, or hands the table back to rich.

Tables are drawn like `show`'s physics table (text columns that fold, number columns that never wrap,
sections) with words long and short, at console widths that make rich keep, collapse and squeeze the
columns; each text `table_text` gives must equal rich's own print of the same table, byte for byte.
"""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text

from budgetbook.output.plain_table import print_table, table_text

_word = st.text("abcXYZ019_-.,()$%", min_size=1, max_size=14)
_cell = st.one_of(st.just(""), st.builds(" ".join, st.lists(_word, min_size=1, max_size=5)))


@st.composite
def tables(draw):
    columns = draw(st.lists(st.tuples(_cell, st.booleans(), st.booleans()), min_size=1, max_size=9))
    table = Table(title=draw(st.one_of(st.none(), _cell)), title_justify="left")
    for header, text, _as_text in columns:
        table.add_column(header, justify="left" if text else "right", no_wrap=not text,
                         overflow="fold" if text else "ellipsis")
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()) and table.rows:
            table.add_section()
        table.add_row(*[Text(draw(_cell)) if as_text else draw(_cell) for _, _, as_text in columns])
    return table


def _rich(table: Table, width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width, highlight=False, force_terminal=False).print(table)
    return out.getvalue()


@given(tables(), st.integers(20, 200))
def test_the_text_is_rich_s(table, width):
    text = table_text(table, Console(file=io.StringIO(), width=width, highlight=False, force_terminal=False))
    if text is not None:
        assert text == _rich(table, width)


def test_a_label_that_folds_is_folded_as_rich_folds_it():
    table = Table(title="Physics (base case): FLOPs, GPU-hours, wall-clock days, MFU", title_justify="left")
    table.add_column("Market", no_wrap=False, overflow="fold")
    table.add_column("Workload", no_wrap=False, overflow="fold")
    table.add_column("MFU", justify="right", no_wrap=True, overflow="ellipsis")
    table.add_row(Text("Hyperscaler on demand 1, a label long enough to fold"), Text("w0"), "0.422 (stated)")
    table.add_section()
    table.add_row(Text(""), Text("a_workload_id_without_a_space_to_break_at"), "")
    for width in (40, 60, 140):  # at 40 the title is wider than the table: rich wraps it, not this
        text = table_text(table, Console(file=io.StringIO(), width=width, highlight=False, force_terminal=False))
        assert text == _rich(table, width) or (text is None and width == 40)


def test_what_it_cannot_lay_out_goes_to_rich():
    table = Table(title="t")
    table.add_column("a")
    table.add_row("[bold]markup[/bold]")
    assert table_text(table, Console(file=io.StringIO(), width=80, force_terminal=False)) is None
    wide = Table()
    wide.add_column("a")
    wide.add_row(Text("表"))
    assert table_text(wide, Console(file=io.StringIO(), width=80, force_terminal=False)) is None
    assert table_text(wide, Console(file=io.StringIO(), width=80, force_terminal=True)) is None
    out = io.StringIO()
    print_table(wide, Console(file=out, width=80, highlight=False, force_terminal=False))
    assert out.getvalue() == _rich(wide, 80)
