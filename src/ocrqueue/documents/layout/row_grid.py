"""Tables without rules found row by row before the page is cut into regions: a run of text rows
that each split into three or more cells standing in the same columns (a spreadsheet printed to
PDF, a report's table of figures).

XY-cut cuts such a grid wherever a gap happens to run through it: a LibreOffice Calc sheet came
back as its first column read down, its header row with one record, its second column read down,
and the numbers in slices of a few rows (dev CER 0.75-0.78), which no later rule could put back
(layout/aligned_columns.py joins regions side by side only). Found first, the grid is an island
like a ruled table, read one row per text row. Columns of prose never make one: their cells are
long, and their lines run on (``cells_like``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.aligned_columns import cells_like
from ocrqueue.documents.layout.cells import MIN_COLUMN_GAP_PT, column_bounds, nearest_column, table_text
from ocrqueue.documents.layout.rows import merge_rows, split_line
from ocrqueue.documents.model import Block, Line, Table, TableCell, Word
from ocrqueue.documents.text import join_words

MIN_COLUMNS = 3
MIN_ROWS = 5
APART = 2.0  # a gap this many times any other between a grid's columns parts two grids
MAX_ROW_GAP = 1.5  # row heights of blank between two rows of one grid
FULL_ROW_SHARE = 0.8  # rows with a cell in at least MIN_COLUMNS of the grid's columns
SENTENCE_END = re.compile(r"[.!?]$")
ALIGNED_SHARE = 0.8  # rows of a column with a word starting at one x, to cut it there
ALIGNED_TOLERANCE_PT = 2.0
NUMBERS_SHARE = 0.9  # rows of a column of figures that hold the same number of them
NUMBER = re.compile(r"^[-+(]?[$€£¥]?\d[\d.,'\u00a0]*%?\)?$")
# An engine's word it has no confidence in and that holds no letter or digit is a speck of a scan's
# grain ("-=_" between two header cells of a scanned sheet), never a cell: in the gap between two
# columns it joined them.
SPECK_CONFIDENCE = 0.1


def row_grid_tables(lines: Sequence[Line], taken: Sequence[BBox]) -> list[Block]:
    """Table blocks for the grids among ``lines`` outside the ``taken`` boxes (tables, figures)."""
    free = [ln for ln in lines if ln.words and not any(t.contains_center_of(ln.bbox) for t in taken)]
    # Rows from words, not lines: a producer's line may hold words of several rows (the left
    # half of a grid written down its rows as one run of text).
    rows = merge_rows(
        Line(w.text, w.bbox, w.confidence, (w,), ln.font_size) for ln in free for w in ln.words if not _speck(w)
    )
    blocks: list[Block] = []
    i = 0
    while i < len(rows):
        run = _without_spanning_tail(rows[i : _run_end(rows, i)])
        found = _grid_blocks(run, _header(rows, i, run, blocks)) if len(run) >= MIN_ROWS else []
        if found:
            blocks.extend(found)
            i += len(run)
        else:
            i += 1
    return blocks


def _speck(word: Word) -> bool:
    unsure = word.confidence is not None and word.confidence < SPECK_CONFIDENCE
    return unsure and not any(c.isalnum() for c in word.text)


def _without_spanning_tail(run: Sequence[Line]) -> Sequence[Line]:
    """``run`` without its last rows while each runs across the columns of the rows above it: a
    page's footer close under a grid ("ANEXO I-A-1 Pagina 12 de 14") had joined two of its
    columns into one."""
    while len(run) > MIN_ROWS and len(_columns(run[:-1])) > len(_columns(run)):
        run = run[:-1]
    return run


def _columns(rows: Sequence[Line]) -> list[tuple[float, float]]:
    return column_bounds([w.bbox for row in rows for w in row.words], MIN_COLUMN_GAP_PT)


def _cells(row: Line) -> list[tuple[float, float]]:
    return column_bounds([w.bbox for w in row.words], MIN_COLUMN_GAP_PT)


def _run_end(rows: Sequence[Line], start: int) -> int:
    """Past the last row of the run from ``start``: rows of at least two cells, close together,
    whose words together still stand in at least ``MIN_COLUMNS`` columns."""
    columns = _cells(rows[start])
    if len(columns) < MIN_COLUMNS:
        return start
    end = start + 1
    while end < len(rows):
        row, above = rows[end], rows[end - 1]
        if row.bbox.y0 - above.bbox.y1 > MAX_ROW_GAP * max(above.bbox.height, row.bbox.height):
            break
        if len(_cells(row)) < 2:
            break
        # The run's columns so far stand for all its words: merging them with the row's words
        # gives what merging every word would, without going over the run again a row at a time.
        spans = [BBox(x0, 0.0, x1, 0.0) for x0, x1 in columns] + [w.bbox for w in row.words]
        merged = column_bounds(spans, MIN_COLUMN_GAP_PT)
        if len(merged) < MIN_COLUMNS:
            break
        columns = merged
        end += 1
    return end


def _header(rows: Sequence[Line], start: int, run: Sequence[Line], found: Sequence[Block]) -> Line | None:
    """The row above ``run``, the grid that starts at ``start``, when it is the grid's header."""
    if start == 0 or (found and found[-1].bbox.y1 >= rows[start - 1].bbox.cy):
        return None
    return rows[start - 1] if _heads(rows[start - 1], run) else None


def _heads(row: Line, run: Sequence[Line]) -> bool:
    """Whether ``row``, just above a grid, is its header: close above it, within its width, in
    two or more words (a header's names may stand closer together than its columns' gap)."""
    box = union(r.bbox for r in run)
    close = run[0].bbox.y0 - row.bbox.y1 <= MAX_ROW_GAP * max(row.bbox.height, run[0].bbox.height)
    inside = box.x0 - MIN_COLUMN_GAP_PT <= row.bbox.x0 and row.bbox.x1 <= box.x1 + MIN_COLUMN_GAP_PT
    return close and inside and len(row.words) >= 2


def _grid_blocks(body: Sequence[Line], header: Line | None, whole: bool = True) -> list[Block]:
    """The grid as a table, or as two side by side: where the widest gap between its columns is
    ``APART`` times any other and each side holds ``MIN_COLUMNS`` columns, two tables set side
    by side (a listing continued in a second set of columns) were read across as one, the rows
    of both interleaved. A side is a table when the whole is one (``whole`` False: the rows
    filled across the whole were the test)."""
    columns = _split_aligned_columns(body, _split_number_columns(body, _columns(body)))
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(columns)]
    if len(columns) >= 2 * MIN_COLUMNS and (block := _grid_block(body, header, columns)) is not None:
        k = max(range(len(gaps)), key=lambda i: gaps[i])
        others = gaps[:k] + gaps[k + 1 :]
        if MIN_COLUMNS <= k + 1 <= len(columns) - MIN_COLUMNS and gaps[k] >= APART * max(others):
            cut = (columns[k][1] + columns[k + 1][0]) / 2
            sides = [_side(body, header, lambda w: w.bbox.cx < cut), _side(body, header, lambda w: w.bbox.cx >= cut)]
            parts = [_grid_blocks(rows, head, whole=False) for rows, head in sides]
            if all(parts):
                return [b for part in parts for b in part]
        return [block]
    block = _grid_block(body, header, columns, whole)
    return [block] if block is not None else []


def _side(body: Sequence[Line], header: Line | None, keep: Callable[[Word], bool]) -> tuple[list[Line], Line | None]:
    """The rows of ``body`` (and the header) cut to the words ``keep`` takes, rows left empty left out."""

    def cut(row: Line) -> Line | None:
        words = [w for w in row.words if keep(w)]
        return split_line(row, words) if words else None

    rows = [r for r in map(cut, body) if r is not None]
    return rows, cut(header) if header is not None else None


def _grid_block(
    body: Sequence[Line], header: Line | None, columns: list[tuple[float, float]], whole: bool = True
) -> Block | None:
    """The grid as a table in ``columns`` (found from its body rows), the header's words in the
    nearest; ``whole``: its rows must fill its columns (not asked of a side of a grid)."""
    full = sum(len({nearest_column(columns, w.bbox.cx) for w in row.words}) >= MIN_COLUMNS for row in body)
    if not body or (whole and full < FULL_ROW_SHARE * len(body)):
        return None
    if header is not None and not _over_columns(header, columns):
        header = None
    run = [header, *body] if header is not None else list(body)
    grid = [
        [[w for w in row.words if nearest_column(columns, w.bbox.cx) == c] for c in range(len(columns))] for row in run
    ]
    per_column = [
        [
            Line(join_words([w.text for w in cell]), union(w.bbox for w in cell), 1.0, tuple(cell))
            for cell in column
            if cell
        ]
        for column in zip(*grid, strict=True)
    ]
    if not all(cells_like(lines) for lines in per_column if lines):
        return None
    cells = [
        TableCell(r, c, join_words([w.text for w in words]), _cell_box(words, columns[c], run[r]))
        for r, row in enumerate(grid)
        for c, words in enumerate(row)
    ]
    table = Table(len(run), len(columns), tuple(cells))
    return Block("table", union(row.bbox for row in run), table_text(table), 1.0, (), table=table)


def _over_columns(row: Line, columns: list[tuple[float, float]]) -> bool:
    """Whether ``row`` names the columns: every word over one (a header may be wider than its
    figures), at least ``MIN_COLUMNS`` and half of them named, and no sentence: not a line of
    text above the grid ("Invoice no.: 1234" names one or two of an invoice's six columns; the
    last line of a paragraph ends in a full stop)."""
    if SENTENCE_END.search(row.text):
        return False
    named: set[int] = set()
    for word in row.words:
        c = nearest_column(columns, word.bbox.cx)
        if word.bbox.x1 < columns[c][0] or word.bbox.x0 > columns[c][1]:
            return False
        named.add(c)
    return len(named) >= max(MIN_COLUMNS, len(columns) / 2)


def _split_number_columns(run: Sequence[Line], columns: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Columns of numbers set close together (right-aligned figures a space apart, "303 1679.87
    509000.61") come out of the whitespace test as one: a column in which nearly every row
    (``NUMBERS_SHARE``; a header's names aside) holds the same number of numbers, the i-th of
    each such row clear of the (i+1)-th of every other, is that many. Nearly: on a scan the
    engine misreads a figure now and then ("335 LOLZ OL. 506757.85"), and one such row kept a
    Calc sheet's three columns of figures one."""
    out: list[tuple[float, float]] = []
    for x0, x1 in columns:
        cells = [[w for w in row.words if x0 <= w.bbox.cx <= x1] for row in run]
        filled = [sorted(cell, key=lambda w: w.bbox.x0) for cell in cells if cell]
        if filled and not any(NUMBER.match(w.text) for w in filled[0]):
            filled = filled[1:]  # the header's names above the figures
        figures = [cell for cell in filled if all(NUMBER.match(w.text) for w in cell)]
        counts = Counter(len(cell) for cell in figures)
        if counts:
            n, rows = counts.most_common(1)[0]
            typical = [cell for cell in figures if len(cell) == n]
            if n >= 2 and rows >= NUMBERS_SHARE * len(filled):
                parts = [(min(c[i].bbox.x0 for c in typical), max(c[i].bbox.x1 for c in typical)) for i in range(n)]
                if all(a[1] < b[0] for a, b in itertools.pairwise(parts)):
                    out.extend(parts)
                    continue
        out.append((x0, x1))
    return out


def _split_aligned_columns(run: Sequence[Line], columns: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Columns of words set closer than the columns' gap come out of the whitespace test as one
    where a long name reaches the next column ("Distribute copies East": a Calc sheet's items
    and regions): a column is cut before a word in nearly every row (``ALIGNED_SHARE``) starting
    at one x (within ``ALIGNED_TOLERANCE_PT``), after a word of its own row, when no word of any
    row crosses there and the words before it end ragged (``_ragged_before``). Words of running
    text seldom start at one x row after row."""
    out: list[tuple[float, float]] = []
    for x0, x1 in columns:
        cells = [sorted((w for w in row.words if x0 <= w.bbox.cx <= x1), key=lambda w: w.bbox.x0) for row in run]
        filled = [cell for cell in cells if cell]
        words = [w for cell in filled for w in cell]
        edges = [-math.inf, *_aligned_cuts(filled), math.inf]
        for left, right in itertools.pairwise(edges):
            inside = [w for w in words if left <= w.bbox.x0 < right]
            if inside:
                out.append((min(w.bbox.x0 for w in inside), max(w.bbox.x1 for w in inside)))
    return out


def _aligned_cuts(cells: Sequence[Sequence[Word]]) -> list[float]:
    """The x positions (points) inside a column where nearly every row has a word start after a
    word of its own, no word of any row crossing there."""
    cuts: list[float] = []
    for x in sorted(w.bbox.x0 for cell in cells for w in cell[1:]):
        if cuts and x - cuts[-1] <= 2 * ALIGNED_TOLERANCE_PT:
            continue
        rows = sum(any(x <= w.bbox.x0 <= x + 2 * ALIGNED_TOLERANCE_PT for w in cell[1:]) for cell in cells)
        crossed = any(w.bbox.x0 < x < w.bbox.x1 for cell in cells for w in cell)
        if rows >= ALIGNED_SHARE * len(cells) and not crossed and _ragged_before(cells, x):
            cuts.append(x)
    return cuts


def _ragged_before(cells: Sequence[Sequence[Word]], x: float) -> bool:
    """Whether the words left of ``x`` end at different places row by row (by a word's height or
    more), as a column of names does: words after a prefix of one width ("$ 10.00", "Name 3")
    start at one x too, and are not a column of their own."""
    ends = [max(w.bbox.x1 for w in left) for cell in cells if (left := [w for w in cell if w.bbox.x1 <= x])]
    heights = sorted(w.bbox.height for cell in cells for w in cell)
    return bool(ends) and max(ends) - min(ends) >= heights[len(heights) // 2]


def _cell_box(words: Sequence[Word], column: tuple[float, float], row: Line) -> BBox:
    return union(w.bbox for w in words) if words else BBox(column[0], row.bbox.y0, column[1], row.bbox.y1)
