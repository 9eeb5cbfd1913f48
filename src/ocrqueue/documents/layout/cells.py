"""Fill a table grid's cells with the words whose centres fall inside them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import reading_sort
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.model import Line, Table, TableCell, Word
from ocrqueue.documents.text import join_words

MIN_COLUMN_GAP_PT = 0.15 * 72  # whitespace between columns of a table without vertical rules


def grid_cells_to_points(grid: TableGrid, scale: float, dx: float = 0.0, dy: float = 0.0) -> list[TableCell]:
    """Empty cells of ``grid`` with boxes converted from mask pixels (``scale`` px/pt) to points."""
    return [
        TableCell(
            c.row,
            c.col,
            "",
            BBox(c.x0 / scale + dx, c.y0 / scale + dy, c.x1 / scale + dx, c.y1 / scale + dy),
            c.row_span,
            c.col_span,
        )
        for c in grid.cells
    ]


def words_by_cell(cells: Sequence[TableCell], words: Iterable[Word]) -> list[list[Word]]:
    """The words whose centre lies in each cell, in ``cells``' order (a word in the first cell
    that holds it)."""
    buckets: list[list[Word]] = [[] for _ in cells]
    for word in words:
        for i, cell in enumerate(cells):
            if cell.bbox.contains_center_of(word.bbox):
                buckets[i].append(word)
                break
    return buckets


def fill_table(n_rows: int, n_cols: int, cells: list[TableCell], words: Iterable[Word]) -> Table:
    buckets = words_by_cell(cells, words)
    filled = []
    for cell, bucket in zip(cells, buckets, strict=True):
        # Words of one cell may sit on several rows: order them like lines.
        rows = reading_sort([Line(w.text, w.bbox) for w in bucket])
        filled.append(
            TableCell(cell.row, cell.col, join_words([r.text for r in rows]), cell.bbox, cell.row_span, cell.col_span)
        )
    return Table(n_rows, n_cols, tuple(filled))


def table_text(table: Table) -> str:
    """Plain-text rendering: one row per line, cells separated by tabs."""
    return "\n".join("\t".join(row) for row in table.grid())


def column_bounds(boxes: list[BBox], min_gap: float) -> list[tuple[float, float]]:
    """Column extents of a table without vertical rules: the x ranges covered by words, split
    where at least ``min_gap`` of whitespace runs through every row."""
    spans = sorted((b.x0, b.x1) for b in boxes)
    columns: list[tuple[float, float]] = []
    for x0, x1 in spans:
        if columns and x0 - columns[-1][1] < min_gap:
            columns[-1] = (columns[-1][0], max(columns[-1][1], x1))
        else:
            columns.append((x0, x1))
    return columns


def nearest_column(columns: list[tuple[float, float]], x: float) -> int:
    """The index of the column of ``columns`` (x ranges) that ``x`` lies in, or lies nearest to."""
    return min(range(len(columns)), key=lambda c: max(columns[c][0] - x, x - columns[c][1], 0.0))
