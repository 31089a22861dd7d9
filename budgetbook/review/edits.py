"""The one edit detector: a workbook against the workbook budgetbook would write for its own embedded plan.

The overwrite guard must count every edit a user would lose: typed inputs
and formulas, but also an added sheet, notes typed beside the figures, a
helper cell, a comment, an input turned into a formula of the same value
(`=1.9*2` where 3.8 was typed). So it does not ask "did the figures change":
it rebuilds the workbook from the book's own embedded plan, with the stamp's
generation date and version so the About sheet matches, and compares a
normalized dump of both (`snapshot.py`): sheet titles, order and visibility,
hidden rows and columns; every non-empty cell's value or formula, number
format and comment; and every defined name.

Untouched is the common case and must be fast (the guard runs before every
`generate` over an existing file): the dumps are compared as they are, with no
formula parsed. Only when they differ (or LibreOffice has respelled the
formulas) are the differences worked out: formulas in name form
(`formula_text.to_names`), rows aligned so an inserted row is one difference
rather than every row below it, the first few described for the refusal.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

from ..plan.inputs import input_cells
from ..sheetkit.embed import SHEET as EMBED_SHEET
from ..xlsx.a1 import column_index_from_string, coordinate_from_string, get_column_letter
from ..xlsx.formula_text import CellNames, FormulaTextError, normalize, to_names
from .readback import OpenedWorkbook, single_cell
from .snapshot import Cell, Content, Dump, dump, rebuilt_dump


@dataclass(frozen=True)
class Difference:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


# ---------------------------------------------------------------- the differences

def differences(book: OpenedWorkbook) -> list[Difference]:
    """Every difference between the workbook and its rebuild, sheet by sheet, top to bottom; [] when untouched."""
    generated, current = rebuilt_dump(book), dump(book.wb)
    if generated == current:
        return []
    return _Differ(book, generated, current).run()


class _Differ:
    def __init__(self, book: OpenedWorkbook, generated: Dump, current: Dump):
        self.book, self.generated, self.current = book, generated, current
        self.labels = {cell.name.lower(): cell.label for cell in input_cells(book.plan)}
        self.gen_at = _names_at(generated.names)
        self.cur_at = _names_at(current.names)
        self.gen_names = CellNames.of({key: names[0] for key, names in self.gen_at.items()})
        self.cur_names = CellNames.of({key: names[0] for key, names in self.cur_at.items()})
        self.out: list[Difference] = []

    def run(self) -> list[Difference]:
        self._sheets()
        gen_titles = {title for title, _ in self.generated.sheets}
        for title, _ in self.current.sheets:
            if title in gen_titles and not self._same_sheet(title):
                self._rows(title)
        self._names()
        return self.out

    def _same_sheet(self, title: str) -> bool:
        """The sheet as written, told without aligning rows: most sheets of an edited book, and every sheet
        of an untouched one LibreOffice saved (it respells a tenth of the formulas: `'Compute'!C14` as
        `Compute!C14`; with the names where they were, the spelling is all that can differ)."""
        upper = title.upper()
        if {k: v for k, v in self.gen_at.items() if k[0] == upper} != \
                {k: v for k, v in self.cur_at.items() if k[0] == upper}:
            return False
        gen, cur = self.generated.cells.get(title, {}), self.current.cells.get(title, {})
        if gen == cur:
            return True
        return gen.keys() == cur.keys() and all(_respelled(gen[key], cur[key], title) for key in gen
                                                if gen[key] != cur[key])
    def add(self, where: str, message: str) -> None:
        self.out.append(Difference(where, message))

    def _sheets(self) -> None:
        gen = dict(self.generated.sheets)
        cur = dict(self.current.sheets)
        for title in gen:
            if title not in cur:
                self.add(f"sheet `{title}`", "is gone")
        for title in cur:
            if title not in gen:
                count = len(self.current.cells.get(title, {}))
                self.add(f"sheet `{title}`", f"added ({count} cell(s) filled)")
            elif cur[title] != gen[title]:
                self.add(f"sheet `{title}`", f"is now {cur[title]} (budgetbook wrote it {gen[title]})")
        for title, what in self.current.hidden.items():
            if title in gen and what != self.generated.hidden.get(title, ""):
                self.add(f"sheet `{title}`", f"{what} hidden")
        common_gen = [t for t in gen if t in cur]
        common_cur = [t for t in cur if t in gen]
        if common_gen != common_cur:
            self.add("sheets", f"reordered: {', '.join(common_cur)} (budgetbook wrote {', '.join(common_gen)})")

    def _names(self) -> None:
        gen, cur = self.generated.names, self.current.names
        for name in gen:
            if name not in cur:
                self.add(f"name `{name}`", "deleted")
        for name in cur:
            if name not in gen:
                self.add(f"name `{name}`", f"added (`{_short(cur[name])}`)")
            elif single_cell(cur[name]) is None and cur[name] != gen[name]:
                self.add(f"name `{name}`", f"now `{_short(cur[name])}` (budgetbook wrote `{_short(gen[name])}`)")
        # names on cells are compared with their cells (they move with inserted rows)

    def _rows(self, title: str) -> None:
        gen = _Rows(title, self.generated.cells.get(title, {}), self.gen_at, self.gen_names)
        cur = _Rows(title, self.current.cells.get(title, {}), self.cur_at, self.cur_names)
        if gen.keys == cur.keys:
            return
        matcher = difflib.SequenceMatcher(None, gen.keys, cur.keys, autojunk=False)
        for op, g1, g2, c1, c2 in matcher.get_opcodes():
            if op == "equal":
                continue
            for kind, (start, stop), at in _runs(_pair(gen, cur, range(g1, g2), range(c1, c2))):
                if kind == "paired":
                    for g, c in zip(range(start, stop), range(at, at + stop - start), strict=True):
                        self._row_cells(title, gen.row(g), cur.row(c), c + 1)
                elif kind == "inserted":
                    self._inserted(title, cur, start, stop)
                else:
                    self._deleted(title, gen, start, stop)

    def _inserted(self, title: str, cur: _Rows, start: int, stop: int) -> None:
        filled = [i for i in range(start, stop) if cur.keys[i]]
        if len(filled) < stop - start:
            self.add(title, _row_span("inserted", start + 1, stop) + (
                f" ({len(filled)} of them filled)" if filled else ""))
        for i in filled:
            for col, (_, raw) in sorted(cur.row(i).items()):
                self.add(_a1(title, i + 1, col), f"{_show(raw)} added{self._named(cur.names_of(i + 1, col))}")

    def _deleted(self, title: str, gen: _Rows, start: int, stop: int) -> None:
        held = [raw for i in range(start, stop) for _, (_, raw) in sorted(gen.row(i).items())
                if raw is not None and raw.content != ("s", "")]
        shown = ", ".join(_show(raw) for raw in held[:3]) + (", ..." if len(held) > 3 else "")
        held_text = f" (it held {shown})" if held else ""
        self.add(title, _row_span("deleted", start + 1, stop, "budgetbook's ") + held_text)

    def _row_cells(self, title: str, gen: dict, cur: dict, row: int) -> None:
        for col in sorted(set(gen) | set(cur)):
            g, c = gen.get(col), cur.get(col)
            if g is not None and c is not None and (g[0] == c[0] or (g[0].names == c[0].names
                                                                     and same_number(g[1], c[1]))):
                continue
            self.add(*self._describe(title, row, col, g, c))

    def _describe(self, title: str, row: int, col: int, g: tuple[_Key, Cell] | None,
                  c: tuple[_Key, Cell] | None) -> tuple[str, str]:
        where = _a1(title, row, col)
        if title == EMBED_SHEET:  # the rebuild embeds the book's own plan text: its digest is what differs
            return where, "the hidden plan or its stamp was edited after generate (its digest no longer matches)"
        either = c or g
        assert either is not None  # a cell on one side at least
        names = either[0].names
        place = f"{where} ({', '.join(names)})" if names else where
        label = next((self.labels[n.lower()] for n in names if n.lower() in self.labels), None)
        said = f"{label}: " if label else ""
        if g is None or g[1].content == ("s", ""):
            return place, f"{_show(c[1] if c else None)} added" + ("" if names else " where budgetbook wrote nothing")
        if c is None or c[1].content == ("s", ""):
            return place, f"{said}{_show(g[1])} deleted"
        (gen_key, gen_raw), (cur_key, cur_raw) = g, c
        if gen_key.content != cur_key.content:
            if gen_raw.content[0] == "f" and cur_raw.content[0] == "f":
                return place, (f"formula differs from the one generated (`{_short(gen_raw.content[1])}` -> "
                               f"`{_short(cur_raw.content[1])}`)")
            if gen_raw.content[0] == "f":
                return place, f"formula `{_short(gen_raw.content[1])}` replaced by {_show(cur_raw)}"
            return place, f"{said}{_show(gen_raw)} -> {_show(cur_raw)}"
        if gen_key.names != cur_key.names:
            was = ", ".join(f"`{n}`" for n in gen_key.names) or "nothing"
            now = ", ".join(f"`{n}`" for n in cur_key.names) or "nothing"
            return where, f"now named {now} (budgetbook named it {was})"
        if gen_raw.number_format != cur_raw.number_format:
            return place, f"number format `{gen_raw.number_format}` -> `{cur_raw.number_format}`"
        return place, f"comment `{_short(gen_raw.comment or '')}` -> `{_short(cur_raw.comment or '')}`"

    @staticmethod
    def _named(names: tuple[str, ...]) -> str:
        return f" (named {', '.join(names)})" if names else ""


def _pair(gen: _Rows, cur: _Rows, gen_rows: range, cur_rows: range) -> list[tuple[int | None, int | None]]:
    """Rows of a changed block, in order: (generated, current) alike enough to be one row edited, else one side.

    The user who inserts a row above a total and extends the total changes both: the total must be
    paired with the total, not with the new row. An alignment that maximizes the cells they share
    does that; a block of as many rows on each side (rows edited in place), or one too big for it
    (a sheet rewritten), is paired row by row.
    """
    if len(gen_rows) == len(cur_rows) or len(gen_rows) * len(cur_rows) > 40_000:
        n = min(len(gen_rows), len(cur_rows))
        return ([(gen_rows[i], cur_rows[i]) for i in range(n)] + [(g, None) for g in gen_rows[n:]]
                + [(None, c) for c in cur_rows[n:]])
    rows, cols = len(gen_rows), len(cur_rows)
    score = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            best = max(score[i + 1][j], score[i][j + 1])
            alike = _alike(gen.keys[gen_rows[i]], cur.keys[cur_rows[j]])
            score[i][j] = max(best, score[i + 1][j + 1] + alike) if alike else best
    out: list[tuple[int | None, int | None]] = []
    i = j = 0
    while i < rows or j < cols:
        alike = _alike(gen.keys[gen_rows[i]], cur.keys[cur_rows[j]]) if i < rows and j < cols else 0
        if alike and score[i][j] == score[i + 1][j + 1] + alike:
            out.append((gen_rows[i], cur_rows[j]))
            i, j = i + 1, j + 1
        elif i < rows and (j == cols or score[i][j] == score[i + 1][j]):
            out.append((gen_rows[i], None))
            i += 1
        else:
            out.append((None, cur_rows[j]))
            j += 1
    return out


def _alike(gen: tuple, cur: tuple) -> int:
    """How many cells two rows share, as written (names aside): 0 for rows with nothing in common."""
    mine = {(k.col, k.content, k.number_format) for k in gen}
    return sum((k.col, k.content, k.number_format) in mine for k in cur)


def _runs(pairs: list[tuple[int | None, int | None]]) -> list[tuple[str, tuple[int, int], int]]:
    """Consecutive pairs of one kind: ("paired", (g1, g2), c1), ("inserted", (c1, c2), 0), ("deleted", (g1, g2), 0)."""
    runs: list[tuple[str, tuple[int, int], int]] = []
    for g, c in pairs:
        kind = "paired" if g is not None and c is not None else ("inserted" if g is None else "deleted")
        index = c if kind == "inserted" else g
        assert index is not None
        if runs and runs[-1][0] == kind and runs[-1][1][1] == index:
            last = runs[-1]
            runs[-1] = (kind, (last[1][0], index + 1), last[2])
        else:
            runs.append((kind, (index, index + 1), c if kind == "paired" and c is not None else 0))
    return runs


@dataclass(frozen=True)
class _Key:
    """A cell as compared: formulas in name form, the names on the cell, not its address."""

    col: int
    content: Content
    number_format: str
    comment: str | None
    names: tuple[str, ...]


class _Rows:
    """One sheet's rows as hashable keys (what `SequenceMatcher` aligns) and the cells behind them."""

    def __init__(self, title: str, cells: dict[tuple[int, int], Cell], names_at: dict, cell_names: CellNames):
        self.title = title
        self.names_at = names_at
        by_row: dict[int, dict[int, tuple[_Key, Cell]]] = {}
        upper = title.upper()
        for (row, col), cell in cells.items():
            names = self.names_of(row, col)
            content = _name_form(cell.content, title, cell_names)
            by_row.setdefault(row, {})[col] = (_Key(col, content, cell.number_format, cell.comment, names), cell)
        for (sheet, coordinate), names in names_at.items():  # a named cell left empty still carries its name
            if sheet == upper:
                row, col = _row_col(coordinate)
                if col not in by_row.get(row, {}):
                    empty = Cell(("s", ""), "General", None)
                    by_row.setdefault(row, {})[col] = (_Key(col, ("s", ""), "General", None, names), empty)
        last = max(by_row, default=0)
        self._rows = [by_row.get(r, {}) for r in range(1, last + 1)]
        self.keys = [tuple(key for key, _ in sorted(row.values(), key=lambda kc: kc[0].col)) for row in self._rows]

    def row(self, index: int) -> dict[int, tuple[_Key, Cell]]:
        return self._rows[index]

    def names_of(self, row: int, col: int) -> tuple[str, ...]:
        return self.names_at.get((self.title.upper(), f"{get_column_letter(col)}{row}"), ())


def _names_at(names: dict[str, str]) -> dict[tuple[str, str], tuple[str, ...]]:
    """(SHEET, `C5`) -> the names on that cell, sorted."""
    out: dict[tuple[str, str], list[str]] = {}
    for name, target in names.items():
        where = single_cell(target)
        if where is not None and "!" not in name:
            out.setdefault((where[0].upper(), where[1]), []).append(name)
    return {key: tuple(sorted(found)) for key, found in out.items()}


def same_number(gen: Cell, cur: Cell) -> bool:
    """Two numbers that differ by how a tool rounded them when it saved (15 significant digits)."""
    return gen.content[0] == cur.content[0] == "n" and (gen.number_format, gen.comment) == \
        (cur.number_format, cur.comment) and math.isclose(gen.content[1], cur.content[1], rel_tol=2e-14)


def _respelled(gen: Cell, cur: Cell, sheet: str) -> bool:
    """The same formula in the same place, spelled differently (case, quotes, `TRUE()`, `1.0`), or the
    same number rounded differently."""
    if same_number(gen, cur):
        return True
    if gen.content[0] != "f" or cur.content[0] != "f" or (gen.number_format, gen.comment) != \
            (cur.number_format, cur.comment):
        return False
    try:
        return normalize(gen.content[1], sheet) == normalize(cur.content[1], sheet)
    except FormulaTextError:
        return False


def _name_form(content: Content, sheet: str, cell_names: CellNames) -> Content:
    if content[0] != "f":
        return content
    try:
        return ("f", to_names(content[1], sheet, cell_names))
    except FormulaTextError:
        return content


def _row_col(coordinate: str) -> tuple[int, int]:
    letter, row = coordinate_from_string(coordinate)
    return row, column_index_from_string(letter)


def _a1(title: str, row: int, col: int) -> str:
    return f"{title}!{get_column_letter(col)}{row}"


def _row_span(what: str, first: int, last: int, whose: str = "") -> str:
    return f"{whose}row {first} {what}" if first == last else f"{whose}rows {first}-{last} {what}"


def _show(cell: Cell | None) -> str:
    if cell is None:
        return "nothing"
    kind, value = cell.content[0], cell.content[1]
    if kind == "n":
        return f"{value:g}" if math.isfinite(value) else str(value)
    if kind == "f":
        return _short(value)
    if kind == "s":
        return f'"{_short(value)}"'
    return _short(str(value))


def _short(text: str, width: int = 50) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 3] + "..."
