"""Rows of a ruled table that hold several records: the text rows between two rules (a LaTeX
table ruled after every group of rows), each text row one record across all the columns.

Filled as one grid row, such a row's cells held each column's records run together ("command
environment environment …" beside "\\namefield choices choiceshoriz …"), and the records were
lost. A cell whose text wraps onto several lines (a two-line header) looks the same on the page;
the order the producer wrote the words in tells them apart: records are written a row at a time
across the columns, a wrapped cell's lines one after another before the next cell's. So only
text-layer tables, whose words come in that order, are split.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.model import Line, Table, TableCell, Word

ALIGNED = 0.5  # of a text row's height: how far the centres of one record's cells may differ


def split_stacked_rows(table: Table, words: Sequence[Word]) -> Table:
    """``table`` with each grid row whose every cell holds the same number (two or more) of text
    rows, side by side and written row by row across the cells (``words`` in the order written),
    split into one row per text row. Rows a spanning cell covers stay as they are."""
    spanned = {r for c in table.cells if c.row_span > 1 for r in range(c.row, c.row + c.row_span)}
    records: dict[int, list[list[Line]]] = {}
    for r in range(table.n_rows):
        cells = [c for c in table.cells if c.row == r]
        if r in spanned or len(cells) < 2 or any(c.col_span > 1 for c in cells):
            continue
        rows = [_text_rows(c.bbox, words) for c in cells]
        if _stacked(rows):
            records[r] = [[line for line, _ in record] for record in zip(*rows, strict=True)]
    if not records:
        return table
    first_row: dict[int, int] = {}
    at = 0
    for r in range(table.n_rows):
        first_row[r] = at
        at += len(records.get(r, [None]))
    split: list[TableCell] = []
    for c in table.cells:
        if c.row not in records:
            split.append(TableCell(first_row[c.row], c.col, c.text, c.bbox, c.row_span, c.col_span))
            continue
        stack = records[c.row]
        tops = [c.bbox.y0, *(_between(above, below) for above, below in itertools.pairwise(stack))]
        bottoms = [*tops[1:], c.bbox.y1]
        place = [x.col for x in table.cells if x.row == c.row].index(c.col)
        for i, line in enumerate(record[place] for record in stack):
            box = BBox(c.bbox.x0, tops[i], c.bbox.x1, bottoms[i])
            split.append(TableCell(first_row[c.row] + i, c.col, line.text, box))
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
