"""Tables without any rules: text regions side by side whose lines stand in the same rows.

XY-cut separates the columns of a borderless table (an invoice's items, a listing of numbers,
names and descriptions) like columns of text, and each was read down on its own: "15 16 17 …
CPLXSXP STRSXP …". Regions that sit side by side, whose lines pair up row by row and whose lines
do not run on into each other as prose does, are one table: a row per line, a column per region.
Multi-column prose (a newspaper, an exam sheet) is never a table: its lines run on, lowercase
after a line without a full stop, and the rows of its columns need not line up.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.model import Block, Line, Table, TableCell, Word
from ocrqueue.documents.text import join_words

MIN_ROWS = 3
SIDE_BY_SIDE = 0.5  # share of the shorter region's height two regions must share
ROW_MATCH = 0.6  # share of a line's height two lines' centres may differ by in one row
PAIRED_SHARE = 0.7  # lines of each region that must have a partner in another region's rows
MAX_RUN_ON_SHARE = 0.2  # lines that run on into the next as prose does, at most
WRAPPED_SHARE = 0.5  # prose: most lines end where the next word would not have fit
SPACE_PER_HEIGHT = 0.25  # a space's width against the line's height
FILLED_WIDTH = 0.85  # a line this wide (share of its column's) fills it
FILLED_SHARE = 0.5  # prose: most lines (more than this share) fill the column
MAX_CELL_WORDS = 8
SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)]*$")
SENTENCE_MIN_WORDS = 4
SENTENCE_SHARE = 0.5  # lines that are sentences which make a region prose
RUNS_ON = re.compile(r"[^\W\d_][,;]?$")  # a line ending in a word (or a comma) ...
STARTS_LOWER = re.compile(r"^[^\W\d_A-Z\u00c0-\u00de]")  # ... before a line starting in lowercase


def aligned_tables(
    regions: Sequence[BBox], lines: Sequence[Sequence[Line]], boxes: Sequence[int] = ()
) -> dict[int, tuple[Block, list[int]]]:
    """Tables made of runs of neighbouring ``regions`` (in reading order, with their ``lines``):
    keyed by the run's first region, the table block and the regions it takes in. With ``boxes``
    (a form box's number per region, -1 outside forms), a run stays in one box: a form's boxes
    side by side are fields, each read on its own, not the columns of a table."""
    out: dict[int, tuple[Block, list[int]]] = {}
    i = 0
    while i < len(regions):
        run = [i]
        while (
            run[-1] + 1 < len(regions)
            and _beside(regions[run[-1]], regions[run[-1] + 1])
            and (not boxes or boxes[run[-1]] == boxes[run[-1] + 1])
        ):
            run.append(run[-1] + 1)
        if len(run) >= 2 and all(cells_like(lines[j]) for j in run) and rows_pair_up([lines[j] for j in run]):
            block = _table([regions[j] for j in run], [lines[j] for j in run])
            if block is not None:
                out[i] = (block, run)
        i = run[-1] + 1
    return out


def _beside(a: BBox, b: BBox) -> bool:
    """``b`` right of ``a``, the two sharing most of the shorter one's height."""
    shared = min(a.y1, b.y1) - max(a.y0, b.y0)
    return b.x0 >= a.x1 and shared > SIDE_BY_SIDE * min(a.height, b.height)


def cells_like(lines: Sequence[Line]) -> bool:
    """Short lines that are not a column of prose. Lines that are sentences (four words or more
    ending in a full stop) are prose, set a sentence a line as they may be. Prose also runs on
    from line to line (a word, then a lowercase word on the next line), and its lines end where
    the next word would not fit, most of them filling the column: a column of descriptions may
    run on too, but its lines are as long as each description."""
    if not lines:
        return False
    words = sorted(len(ln.text.split()) for ln in lines)
    if words[len(words) // 2] > MAX_CELL_WORDS:
        return False
    sentences = sum(len(ln.text.split()) >= SENTENCE_MIN_WORDS and bool(SENTENCE_END.search(ln.text)) for ln in lines)
    if sentences >= SENTENCE_SHARE * len(lines):
        return False
    ordered = sorted(lines, key=lambda ln: ln.bbox.y0)
    pairs = max(1, len(ordered) - 1)
    run_on = sum(bool(RUNS_ON.search(a.text) and STARTS_LOWER.match(b.text)) for a, b in itertools.pairwise(ordered))
    right = max(ln.bbox.x1 for ln in lines)
    wrapped = sum(_next_word_would_not_fit(a, b, right) for a, b in itertools.pairwise(ordered))
    left = min(ln.bbox.x0 for ln in lines)
    filled = sum(ln.bbox.x1 - left >= FILLED_WIDTH * (right - left) for ln in lines)
    return run_on <= MAX_RUN_ON_SHARE * pairs or wrapped < WRAPPED_SHARE * pairs or filled <= FILLED_SHARE * len(lines)


def _next_word_would_not_fit(line: Line, following: Line, right: float) -> bool:
    first = following.words[0].bbox.width if following.words else following.bbox.width
    space = SPACE_PER_HEIGHT * line.bbox.height
    return line.bbox.x1 + space + first > right


def rows_pair_up(columns: Sequence[Sequence[Line]]) -> bool:
    """Most lines of every column share a row with a line of another column."""
    for c, own in enumerate(columns):
        others = [ln for k, col in enumerate(columns) if k != c for ln in col]
        paired = sum(any(_same_row(ln, other) for other in others) for ln in own)
        if paired < PAIRED_SHARE * len(own):
            return False
    return True


def _same_row(a: Line, b: Line) -> bool:
    return abs(a.bbox.cy - b.bbox.cy) <= ROW_MATCH * min(a.bbox.height, b.bbox.height)


def _table(boxes: Sequence[BBox], columns: Sequence[Sequence[Line]]) -> Block | None:
    rows = merge_rows(ln for col in columns for ln in col if ln.words)
    if len(rows) < MIN_ROWS:
        return None
    cells = []
    for r, row in enumerate(rows):
        for c, box in enumerate(boxes):
            words: list[Word] = [w for w in row.words if box.x0 <= w.bbox.cx <= box.x1]
            cell_box = union(w.bbox for w in words) if words else BBox(box.x0, row.bbox.y0, box.x1, row.bbox.y1)
            cells.append(TableCell(r, c, join_words([w.text for w in words]), cell_box))
    table = Table(len(rows), len(boxes), tuple(cells))
    text = "\n".join("\t".join(row) for row in table.grid())
    all_lines = [ln for col in columns for ln in col]
    known = [ln.confidence for ln in all_lines if ln.confidence is not None]
    confidence = sum(known) / len(known) if known else None
    return Block("table", union(boxes), text, confidence, (), table=table)
