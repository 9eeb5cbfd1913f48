"""Rows of a ruled table that hold several records: the text rows between two rules (a LaTeX
table ruled after every group of rows), each text row one record across all the columns.

Filled as one grid row, such a row's cells held each column's records run together ("command
environment environment …" beside "\\namefield choices choiceshoriz …"), and the records were
lost. A cell whose text wraps onto several lines (a two-line header) looks the same on the page;
the order the producer wrote the words in tells them apart: records are written a row at a time
across the columns, a wrapped cell's lines one after another before the next cell's. So
text-layer tables, whose words come in that order, are split by it (``split_stacked_rows``).

A page read by OCR has no such order: its words come row by row whatever the table. Its grid rows
are split where their cells read as records do (``split_aligned_rows``): three text rows or more,
every cell's lines short and not running on as prose does, and most lines of every cell beside a
line of another (layout/aligned_columns.py's tests for a table without rules). A slide's table
ruled only under its header and between its columns came back as one row whose cells held the
columns' twelve records each (dev nlp2004slides p. 22).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.aligned_columns import MIN_ROWS, cells_like, rows_pair_up
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.model import Line, Table, TableCell, Word

ALIGNED = 0.5  # of a text row's height: how far the centres of one record's cells may differ

# One record: per cell of its grid row (in column order), the cell's text row in it (None: none).
Record = list[Line | None]


def split_stacked_rows(table: Table, words: Sequence[Word]) -> Table:
    """``table`` with each grid row whose every cell holds the same number (two or more) of text
    rows, side by side and written row by row across the cells (``words`` in the order written),
    split into one row per text row. Rows a spanning cell covers stay as they are."""
    records: dict[int, list[Record]] = {}
    for r, cells in _plain_rows(table):
        rows = [_text_rows(c.bbox, words) for c in cells]
        if _stacked(rows):
            records[r] = [[line for line, _ in record] for record in zip(*rows, strict=True)]
    return _split(table, records)


def split_aligned_rows(table: Table, words: Sequence[Word]) -> Table:
    """``table`` (read by OCR, ``words`` in any order) with each grid row whose cells read as
    records (module docstring) split into one row per record; a cell with no text row beside a
    record is empty in it. Rows a spanning cell covers stay as they are."""
    if not table.cells:
        return table
    # The page's words are many and a grid's cells too: each cell looks only among the table's.
    extent = union(c.bbox for c in table.cells)
    words = [w for w in words if extent.contains_center_of(w.bbox)]
    records: dict[int, list[Record]] = {}
    for r, cells in _plain_rows(table):
        rows = [[line for line, _ in _text_rows(c.bbox, words)] for c in cells]
        filled = [cell for cell in rows if cell]
        if len(filled) < 2 or not all(cells_like(cell) for cell in filled) or not rows_pair_up(filled):
            continue
        merged = merge_rows(line for cell in filled for line in cell)
        if len(merged) < MIN_ROWS:
            continue
        records[r] = [[_in_row(cell, row) for cell in rows] for row in merged]
    return _split(table, records)


def _plain_rows(table: Table) -> list[tuple[int, list[TableCell]]]:
    """The grid rows no spanning cell covers, with their cells, when they have two or more."""
    spanned = {r for c in table.cells if c.row_span > 1 for r in range(c.row, c.row + c.row_span)}
    out = []
    for r in range(table.n_rows):
        cells = sorted((c for c in table.cells if c.row == r), key=lambda c: c.col)
        if r not in spanned and len(cells) >= 2 and not any(c.col_span > 1 for c in cells):
            out.append((r, cells))
    return out


def _in_row(cell: list[Line], row: Line) -> Line | None:
    """The text row of ``cell`` that is part of the merged ``row``."""
    return next((line for line in cell if row.bbox.y0 <= line.bbox.cy <= row.bbox.y1), None)


def _split(table: Table, records: dict[int, list[Record]]) -> Table:
    """``table`` with the grid rows in ``records`` made one row per record."""
    if not records:
        return table
    first_row: dict[int, int] = {}
    at = 0
    for r in range(table.n_rows):
        first_row[r] = at
        at += len(records.get(r, [[]]))
    split: list[TableCell] = []
    for c in table.cells:
        if c.row not in records:
            split.append(TableCell(first_row[c.row], c.col, c.text, c.bbox, c.row_span, c.col_span))
            continue
        stack = [[line for line in record if line is not None] for record in records[c.row]]
        tops = [c.bbox.y0, *(_between(above, below) for above, below in itertools.pairwise(stack))]
        bottoms = [*tops[1:], c.bbox.y1]
        place = sorted(x.col for x in table.cells if x.row == c.row).index(c.col)
        for i, record in enumerate(records[c.row]):
            line = record[place]
            box = BBox(c.bbox.x0, tops[i], c.bbox.x1, bottoms[i])
            split.append(TableCell(first_row[c.row] + i, c.col, line.text if line is not None else "", box))
    split.sort(key=lambda c: (c.row, c.col))
    return Table(at, table.n_cols, tuple(split))


def _text_rows(box: BBox, words: Sequence[Word]) -> list[tuple[Line, list[int]]]:
    """The text rows of a cell, each with the positions (in ``words``) of the words on it."""
    inside = [(i, w) for i, w in enumerate(words) if box.contains_center_of(w.bbox)]
    rows = merge_rows(Line(w.text, w.bbox, words=(w,)) for _, w in inside)
    return [(row, [i for i, w in inside if row.bbox.y0 <= w.bbox.cy <= row.bbox.y1]) for row in rows]


def _stacked(rows: list[list[tuple[Line, list[int]]]]) -> bool:
    """Every cell has the same number (two or more) of text rows; the i-th of each stand side by
    side; and every word of the i-th text rows was written before any of the next ones."""
    count = len(rows[0])
    if count < 2 or any(len(cell) != count for cell in rows):
        return False
    for record in zip(*rows, strict=True):
        height = min(line.bbox.height for line, _ in record)
        if max(ln.bbox.cy for ln, _ in record) - min(ln.bbox.cy for ln, _ in record) > ALIGNED * height:
            return False
    written = [[i for _, positions in record for i in positions] for record in zip(*rows, strict=True)]
    return all(max(before) < min(after) for before, after in itertools.pairwise(written))


def _between(above: list[Line], below: list[Line]) -> float:
    return (max(ln.bbox.y1 for ln in above) + min(ln.bbox.y0 for ln in below)) / 2
