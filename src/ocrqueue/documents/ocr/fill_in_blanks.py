"""Blanks to fill in on a rendered page: a short rule on a line's baseline beside its words
("Place, date: ____ Signature: ____"), as a form made in a word processor types it with
underscores. Rules are painted out before the engine reads the page (so that table borders never
come back as "|" or "_"), and such a blank vanished from the text: two made dev forms lost their
two blanks each (CER 0.101, all of it those). A blank comes back as a word of underscores, as many
as the rule is long in the line's own characters."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.rows import with_words
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import mostly_wide

MAX_LENGTH_IN = 4.0  # a blank's length at most: longer is a separator or a border
MAX_THICK = 0.15  # of the line's height a blank's rule is thick at most
BASELINE_BAND = (0.7, 1.3)  # where the rule lies, in line heights from the line's top
# Line heights between a blank and the nearest word of its line: a typed blank is a space from its
# label; a rule ending a paragraph in the next column lies a gutter away (1.5 on a three-column
# manual, whose rules had become blanks of the lines beside them).
MAX_GAP = 1.0
UNDERSCORE = "_"


def find_rule_segments(mask: Mask, grids: Sequence[TableGrid], dpi: int) -> list[BBox]:
    """Horizontal pieces of the rules' mask (pixels) no longer than ``MAX_LENGTH_IN``, outside
    every ruled table. Only the box round the rules is labelled: most pages have none, and
    labelling a blank 200-dpi page cost 15 ms of one core."""
    rows, columns = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return []
    top, left = int(rows[0]), int(columns[0])
    rules = mask[top : int(rows[-1]) + 1, left : int(columns[-1]) + 1]
    count, _, stats, _ = cv2.connectedComponentsWithStats(rules.view(np.uint8), connectivity=8)
    longest = MAX_LENGTH_IN * dpi
    found = []
    for i in range(1, count):
        x, y, w, h = (int(v) for v in stats[i, :4])
        x, y = x + left, y + top
        if w < 4 * h or w > longest:
            continue
        box = BBox(x, y, x + w, y + h)
        if not any(_inside(box, grid) for grid in grids):
            found.append(box)
    return found


def _inside(box: BBox, grid: TableGrid) -> bool:
    return grid.x0 - 2 <= box.x0 and box.x1 <= grid.x1 + 2 and grid.y0 - 2 <= box.y0 and box.y1 <= grid.y1 + 2


def with_blanks(lines: Sequence[Line], segments: Sequence[BBox]) -> tuple[Line, ...]:
    """``lines`` (pixels) with a word of underscores for each blank on one's baseline beside its
    words of letters or digits (not under them: that is an underline; a line of specks read
    beside a drawing's dimension line is no label), in Latin-like lines only."""
    out = list(lines)
    for segment in segments:
        at = next((i for i, line in enumerate(out) if _blank_of(segment, line)), None)
        if at is None:
            continue
        line = out[at]
        blank = Word(UNDERSCORE * _length(segment, line), segment, None)
        out[at] = with_words(line, sorted([*line.words, blank], key=lambda w: w.bbox.x0))
    return tuple(out)


def _blank_of(segment: BBox, line: Line) -> bool:
    words = [w for w in line.words if any(c.isalnum() for c in w.text)]
    if not words or any(mostly_wide(w.text) for w in words):
        return False
    height = line.bbox.height
    top, bottom = (line.bbox.y0 + f * height for f in BASELINE_BAND)
    if not (top <= segment.cy <= bottom and segment.height <= max(2.0, MAX_THICK * height)):
        return False
    if any(min(w.bbox.x1, segment.x1) > max(w.bbox.x0, segment.x0) for w in words):
        return False
    gap = min(max(w.bbox.x0 - segment.x1, segment.x0 - w.bbox.x1) for w in words)
    return gap <= MAX_GAP * height


def _length(segment: BBox, line: Line) -> int:
    """Underscores the rule's length makes in the line's mean character width."""
    chars = sum(len(w.text) for w in line.words)
    width = sum(w.bbox.width for w in line.words)
    return max(1, round(segment.width / (width / chars))) if chars else 1
