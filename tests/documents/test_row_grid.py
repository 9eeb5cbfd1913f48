"""Grids of short cells without rules (layout/row_grid.py), from words placed as a 9 pt font sets
them: how their columns are found where OCR or the page around them gets in the way."""

from __future__ import annotations

from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.row_grid import row_grid_tables
from ocrqueue.documents.model import Line, Word

CHAR_PT = 5.0  # a character's width
ROW_PT = 12.0  # rows' pitch; a row is 9 pt tall


def _line(y: float, cells: Sequence[tuple[float, str, str]]) -> Line:
    """A row of words: each cell ``(x, text, align)`` starts (``"l"``) or ends (``"r"``) at x, its
    words a space (one character) apart."""
    words: list[Word] = []
    for x, text, align in cells:
        left = x if align == "l" else x - CHAR_PT * len(text)
        for part in text.split():
            words.append(Word(part, BBox(left, y, left + CHAR_PT * len(part), y + 9.0), 0.95))
            left += CHAR_PT * (len(part) + 1)
    return Line(
        " ".join(w.text for w in words), BBox(words[0].bbox.x0, y, words[-1].bbox.x1, y + 9.0), 0.95, tuple(words)
    )


def _grids(rows: Sequence[Sequence[tuple[float, str, str]]], top: float = 100.0) -> list[list[list[str]]]:
    lines = [_line(top + i * ROW_PT, row) for i, row in enumerate(rows)]
    return [b.table.grid() for b in row_grid_tables(lines, []) if b.table is not None]


def test_names_set_closer_than_a_columns_gap_are_cut_where_the_next_column_starts() -> None:
    """A Calc sheet's items and regions: "Distribute copies" ends a space before "East"."""
    items = ["Distribute copies", "Desk", "Called opaque", "Lamp", "Paper", "Performance of"]
    regions = ["East", "North", "West", "South", "East", "West"]
    rows = [
        [(50, item, "l"), (50 + CHAR_PT * 18, region, "l"), (260, "12", "r"), (330, "4.50", "r")]
        for item, region in zip(items, regions, strict=True)
    ]
    (grid,) = _grids(rows)
    assert [row[:2] for row in grid] == [[i, r] for i, r in zip(items, regions, strict=True)]
    assert len(grid[0]) == 4


def test_figures_a_space_apart_stay_apart_when_one_is_misread() -> None:
    """Right-aligned figures a space apart, one row's figure misread as letters ("LOLZ OL.")."""
    figures = [("201", "1788.94", "359576.94"), ("484", "2266.05", "1096768.2"), ("299", "144.16", "43103.84"),
               ("260", "665.2", "172952"), ("335", "LOLZ OL.", "506757.85"), ("486", "1292.88", "628339.68"),
               ("262", "2.96", "775.52"), ("404", "1760.54", "711258.16"), ("275", "193.23", "53138.25"),
               ("190", "1769.88", "336277.2"), ("265", "2192.75", "581078.75")]  # fmt: skip
    rows = [[(50, "Item", "l"), (120, "East", "l"), (200, a, "r"), (250, b, "r"), (305, c, "r"), (360, "5.5", "r")]
            for a, b, c in figures]  # fmt: skip
    (grid,) = _grids(rows)
    assert len(grid[0]) == 6
    assert [row[2:5] for row in grid] == [list(f) for f in figures]


def test_two_grids_side_by_side_are_two_tables() -> None:
    """A listing continued in a second set of columns: each set is a table of its own."""
    rows = [
        [(60, str(n), "r"), (110, str(100 + n), "r"), (150, str(200 + n), "r")]
        + ([(240, str(20 + n), "r"), (280, str(120 + n), "r"), (320, str(220 + n), "r")] if n < 16 else [])
        for n in range(1, 21)
    ]
    grids = _grids(rows)
    assert len(grids) == 2
    assert grids[0][0] == ["1", "101", "201"] and len(grids[0]) == 20
    assert grids[1][0] == ["21", "121", "221"] and len(grids[1]) == 15


def test_a_footer_close_under_a_grid_does_not_join_its_columns() -> None:
    """A page's footer in two parts close under the grid, one across two of its columns; and
    cells after a prefix of one width ("Name 3", "$ 10.00") are not cut in two."""
    rows = [
        [(50, f"Name {n}", "l"), (140, "09/10/2013", "l"), (210, "CASH", "l"), (290, "$ 10.00", "r")] for n in range(8)
    ]
    rows.append([(50, "ANEXO I-A-1", "l"), (180, "Page 12", "l")])
    (grid,) = _grids(rows)
    assert len(grid) == 8 and grid[0] == ["Name 0", "09/10/2013", "CASH", "$ 10.00"]


def test_a_speck_of_grain_between_two_columns_does_not_join_them() -> None:
    """A scanned sheet's header: Tesseract read grain between "Revenue" and "Share" as "-=_" with
    no confidence, which joined the two columns (the whole grid's last two came back as one)."""
    rows = [[(50, "Item", "l"), (120, name, "l"), (230, f"{i}4.50", "r"), (300, f"1{i}.5", "r")]
            for i, name in enumerate(["North", "South", "East", "West", "North", "East"])]  # fmt: skip
    heads = [(50, "Item", "l"), (120, "Region", "l"), (230, "Revenue", "r"), (300, "Share", "r")]
    header = _line(100.0 - ROW_PT, heads)
    speck = Word("-=_", BBox(238.0, header.bbox.y0 - 1, 250.0, header.bbox.y1 + 1), 0.0)
    words = tuple(sorted((*header.words, speck), key=lambda w: w.bbox.x0))
    header = Line(" ".join(w.text for w in words), header.bbox, 0.95, words)
    lines = [header, *(_line(100.0 + i * ROW_PT, row) for i, row in enumerate(rows))]
    (table,) = [b.table for b in row_grid_tables(lines, []) if b.table is not None]
    assert table.grid()[0] == ["Item", "Region", "Revenue", "Share"]
