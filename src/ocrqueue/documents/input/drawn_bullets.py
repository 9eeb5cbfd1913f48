"""Bullets a PDF draws as shapes instead of setting them as characters.

Chromium (and so every page printed from a browser) paints a list's disc, circle or square as a
small path beside the item's first line; the text layer has no "•", so the items ran together as
one paragraph (a slide's five points read as one block). A mark drawn just left of a line's first
word, small against the line and about as wide as it is tall, standing within the line's height,
is read as the bullet it is: the line begins with "•" (a word with the mark's box and the role
"bullet": it is no character of the text layer), and the list rules (layout/blocks.py) take it
from there. A checkbox is a stroked square as tall as the text:
larger, and not filled, so it is no bullet.
"""

from __future__ import annotations

from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.model import Line, Word, line_text

MAX_SIDE = 0.6  # line heights: the largest side of a bullet
MIN_SIDE = 0.15  # line heights: its smallest (a speck beside a poster's huge "DRAFT" is none)
MIN_SIDE_PT = 1.0  # smaller marks are specks (a dot of a dotted leader is a character anyway)
MAX_ASPECT = 1.6  # a bullet is about as wide as it is tall
REACH = 2.0  # line heights: the widest gap between a bullet and its item's first word
BULLET = "\u2022"


def is_mark(box: BBox) -> bool:
    """Whether a filled shape of this box may be a bullet (before any line is looked at)."""
    small, large = sorted((box.width, box.height))
    return small >= MIN_SIDE_PT and large <= MAX_ASPECT * small


def _bullet_of(line: Line, marks: Sequence[BBox]) -> BBox | None:
    if not line.words:
        return None
    first, height = line.words[0].bbox, line.bbox.height
    for mark in marks:
        if (
            MIN_SIDE * height <= min(mark.width, mark.height)
            and max(mark.width, mark.height) <= MAX_SIDE * height
            and line.bbox.y0 <= mark.cy <= line.bbox.y1
            and mark.x1 <= first.x0
            and first.x0 - mark.x1 <= REACH * height
        ):
            return mark
    return None


def with_drawn_bullets(lines: Sequence[Line], marks: Sequence[BBox]) -> list[Line]:
    """``lines`` with "•" put before each line that a drawn mark stands in front of."""
    if not marks:
        return list(lines)
    out = []
    for line in lines:
        mark = _bullet_of(line, marks)
        if mark is not None and not line.text.startswith(BULLET):
            words = (Word(BULLET, mark, 1.0, role="bullet"), *line.words)
            line = Line(
                line_text(words), union([mark, line.bbox]), line.confidence, words, line.font_size, line.monospace
            )
        out.append(line)
    return out
