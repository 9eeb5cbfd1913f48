"""Paragraphs that run on from the foot of one column to the head of the next.

Each column is its own region, so such a paragraph comes out as two blocks: a newspaper's or a
two-column paper's page had a paragraph boundary at every column break that the page never
printed. The second block is kept (its box stays in its column) and marked ``continues``;
Markdown, HTML and plain text join it to the first (output/paragraphs.py).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import replace

from ocrqueue.documents.layout.blocks import line_size
from ocrqueue.documents.model import Block, Line

# A line ending a sentence (or a clause a heading or a list would follow) ends its paragraph.
SENTENCE_END = re.compile(r"[.!?:;\u2026\u3002\uff01\uff1f][\"'\u201d\u2019\u00bb)\]]*$")
# The last line of a paragraph that runs on fills its column: at least this share of the widest line
# of the two parts (columns of one page are one width; a part of one line has no other to say so).
RUN_ON_MIN_WIDTH = 0.85
# Both parts are set in one size: their median line sizes differ by at most this share.
SAME_SIZE = 0.1
# The next column starts to the right of the first part, allowing this share of a text size of overlap.
COLUMN_OVERLAP = 0.5


def runs_on(before: Block, after: Block) -> bool:
    """Whether ``after`` continues ``before``'s paragraph in the next column: both text of one
    size, ``after`` beside and above the foot of ``before``, ``before``'s last line filling its
    column without ending a sentence, ``after`` starting in a lowercase letter (no paragraph does;
    scripts without case are never joined)."""
    if before.type != "text" or after.type != "text" or not before.lines or not after.lines:
        return False
    size = _size(before.lines)
    if abs(_size(after.lines) - size) > SAME_SIZE * size:
        return False
    if after.bbox.x0 < before.bbox.x1 - COLUMN_OVERLAP * size or after.bbox.y0 >= before.bbox.y1:
        return False
    last = before.lines[-1]
    if SENTENCE_END.search(last.text.rstrip()):
        return False
    if last.bbox.width < RUN_ON_MIN_WIDTH * max(ln.bbox.width for ln in before.lines + after.lines):
        return False
    return after.lines[0].text.lstrip()[:1].islower()


def _size(lines: Sequence[Line]) -> float:
    return statistics.median(line_size(ln) for ln in lines)


def marked_continuations(blocks: Sequence[Block]) -> tuple[Block, ...]:
    """``blocks`` with each one that ``runs_on`` from the block before it marked ``continues``."""
    out = list(blocks)
    for k in range(1, len(out)):
        if runs_on(out[k - 1], out[k]):
            out[k] = replace(out[k], continues=True)
    return tuple(out)
