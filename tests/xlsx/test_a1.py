"""`xlsx.a1` and `xlsx.tokenizer` answer as openpyxl's own helpers do, and the read path imports no openpyxl."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as hs
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.formula.tokenizer import Tokenizer as OpenpyxlTokenizer
from openpyxl.utils import cell as openpyxl_cell
from openpyxl.utils.exceptions import CellCoordinatesException

from budgetbook.xlsx import a1
from budgetbook.xlsx.tokenizer import Tokenizer

# addresses as budgetbook, users, LibreOffice and a hostile file spell them, and near misses
_PARTS = hs.sampled_from(["A", "a", "Z", "AA", "zz", "XFD", "ZZZ", "AAAA", "$", ":", "0", "1", "12", "007",
                          "1048576", "99999999", " ", "!", "-", "é", ""])
ADDRESSES = hs.lists(_PARTS, max_size=6).map("".join).filter(bool)


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except (ValueError, CellCoordinatesException):  # a1's refusals are all ValueErrors
        return ("refused", None)
    except (KeyError, IndexError, TypeError) as exc:
        return ("error", type(exc).__name__)


@given(ADDRESSES)
def test_the_helpers_answer_and_refuse_as_openpyxl(text):
    for name in ("coordinate_from_string", "range_boundaries", "coordinate_to_tuple"):
        assert _outcome(getattr(a1, name), text) == _outcome(getattr(openpyxl_cell, name), text), (name, text)
    letters = text.strip("$0123456789:")
    assert _outcome(a1.column_index_from_string, letters) == \
        _outcome(openpyxl_cell.column_index_from_string, letters), letters


@pytest.mark.parametrize("index", [0, 1, 25, 26, 27, 52, 702, 703, 16384, 18278, 18279, -1])
def test_column_letters_as_openpyxl(index):
    assert _outcome(a1.get_column_letter, index) == _outcome(openpyxl_cell.get_column_letter, index)


def test_the_illegal_characters_are_openpyxls():
    assert a1.ILLEGAL_CHARACTERS_RE.pattern == ILLEGAL_CHARACTERS_RE.pattern


@pytest.mark.parametrize("formula", ["=SUM(A1:B2)+1", "='Cash flow'!$D$40*2%", '=IF(A1="a""b",TRUE,#N/A)',
                                     "={1,2;3,4}", "=-x_w0_cost_m1^2&\"x\"", "=SUM(Inputs!A:A) ", "=("])
def test_the_tokenizer_is_openpyxls(formula):
    def items(tokenizer):
        try:
            return [(t.value, t.type, t.subtype) for t in tokenizer(formula).items]
        except Exception as exc:  # noqa: BLE001  the same refusal, by name
            return type(exc).__name__

    assert items(Tokenizer) == items(OpenpyxlTokenizer)


def test_reading_a_book_back_imports_no_openpyxl(tmp_path):
    """`show BOOK` and `extract` of a generated book: openpyxl's package (~0.15 s to import) stays unloaded."""
    from budgetbook.cli import main

    book = tmp_path / "book.xlsx"
    assert main(["-q", "generate", "pretrain-7b", "-o", str(book)]) == 0
    probe = ("import sys\nfrom budgetbook.cli import main\n"
             f"main(['-q', 'show', {str(book)!r}, '--format', 'json'])\n"
             f"main(['-q', 'extract', {str(book)!r}, '-o', {str(tmp_path / 'x.yaml')!r}])\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openpyxl'))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stderr


def test_date_formats_are_openpyxls():
    from openpyxl.styles.numbers import BUILTIN_FORMATS
    from openpyxl.styles.numbers import is_date_format as openpyxl_is_date

    from budgetbook.xlsx.date_formats import BUILTIN_DATE_FORMATS, is_date_format

    assert BUILTIN_DATE_FORMATS == {i for i, code in BUILTIN_FORMATS.items() if openpyxl_is_date(code)}
    codes = [*BUILTIN_FORMATS.values(), "yyyy-mm-dd", '"days"0', "[Red]0", "[h]:mm", "[$-409]mmm", "_m0", "\\d0",
             "0;[Red]-d", "[mm]:ss", "General;@", ""]
    assert [is_date_format(c) for c in codes] == [openpyxl_is_date(c) for c in codes]
