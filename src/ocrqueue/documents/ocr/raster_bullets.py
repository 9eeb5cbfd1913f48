"""Bullets on a rendered page: a list's disc or square, a solid piece of ink just left of an
item's first word. Tesseract reads one as "e", "©" or "¢" (layout/blocks.py puts "•" back when
two lines begin so) or leaves it out, and then the items run together as one paragraph (a
slide's five points, rendered from Chromium, came back as one block with "e" before the first).
A solid mark found in the ink before a line's first word makes that line start with "•" (a word
with the role "bullet", as a bullet the text layer draws: input/drawn_bullets.py), and the
list rules take it from there."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.drawn_bullets import BULLET, with_drawn_bullets
from ocrqueue.documents.layout.blocks import BULLET_MISREADS
from ocrqueue.documents.layout.rows import with_words
from ocrqueue.documents.layout.straighten import Pieces
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import mostly_wide

SIDE_IN = (0.03, 0.15)  # a bullet's side in inches: smaller is a full stop, larger a block of ink
MAX_ASPECT = 1.4  # of the longer side to the shorter
MIN_FILL = 0.6  # of its box a disc (0.79) or a square (1.0) fills; a ring, a letter or a frame less
MIN_SIDE = 0.25  # of the line's height: a full stop of the column to the left is smaller
PAIRS_AT_ONCE = 1 << 18  # marks times words compared in one pass of ``_in_words`` (2 MB an array)


def find_bullets(dpi: int, pieces: Pieces) -> list[BBox]:
    """Solid round or square pieces of ink of a bullet's size (pixels)."""
    lo, hi = (side * dpi for side in SIDE_IN)
    _, stats = pieces
    x, y, w, h, area = (stats[:, i] for i in range(5))
    short, long = np.minimum(w, h), np.maximum(w, h)
    found = np.flatnonzero((short >= lo) & (long <= hi) & (long <= MAX_ASPECT * short) & (area >= MIN_FILL * w * h))
    return [BBox(float(x[i]), float(y[i]), float(x[i] + w[i]), float(y[i] + h[i])) for i in found if i > 0]


def mark_bullets(lines: Sequence[Line], marks: Sequence[BBox]) -> tuple[Line, ...]:
    """``lines`` (pixels) with "•" before each whose first word a mark stands in front of, or was
    read from the mark (a misread the engine gave for it, replaced). A mark inside another word
    (a dot in a letter, a full stop) or before a line of Chinese or Japanese is no bullet."""
    if not marks:
        return tuple(lines)
    out = [_misread_replaced(line, marks) for line in lines]
    words = [w.bbox for line in out for w in line.words if w.text != BULLET]
    free = [m for m, inside in zip(marks, _in_words(marks, words), strict=True) if not inside]
    latin = [ln for ln in out if _may_hold_bullet(ln)]
    sized = [m for m in free if _sized_for(m, latin)]
    return tuple(with_drawn_bullets([ln], sized)[0] if _may_hold_bullet(ln) else ln for ln in out)


def _in_words(marks: Sequence[BBox], words: Sequence[BBox]) -> list[bool]:
    """For each mark, whether it overlaps a word's box (``BBox.intersection`` over 0), every mark
    against every word at once: a page of prose has hundreds of dot-sized pieces (its full stops)
    and a thousand words, and one by one the test cost 0.02-0.05 s of one core a 200-dpi page."""
    if not words:
        return [False] * len(marks)
    w = np.asarray(words, dtype=np.float64)
    out: list[bool] = []
    step = max(1, PAIRS_AT_ONCE // len(w))  # marks a pass, so that a dense page's arrays stay small
    for start in range(0, len(marks), step):
        m = np.asarray(marks[start : start + step], dtype=np.float64)
        across = np.minimum(m[:, None, 2], w[None, :, 2]) - np.maximum(m[:, None, 0], w[None, :, 0])
        down = np.minimum(m[:, None, 3], w[None, :, 3]) - np.maximum(m[:, None, 1], w[None, :, 1])
        overlaps: npt.NDArray[np.bool_] = np.any((across > 0) & (down > 0), axis=1, keepdims=False)
        out.extend(bool(v) for v in overlaps)
    return out


MAX_MISREAD_CHARS = 2


def _misread(text: str) -> bool:
    """A word the engine may have made of a bullet: one or two of its misreads ("¢", and "¢«" on
    a scanned LibreOffice report's disc, whose item then ran into the one above). On a mark only."""
    return 0 < len(text) <= MAX_MISREAD_CHARS and all(c in BULLET_MISREADS for c in text)


def _may_hold_bullet(line: Line) -> bool:
    return bool(line.words) and not mostly_wide(line.text)


def _sized_for(mark: BBox, lines: Sequence[Line]) -> bool:
    return any(
        ln.bbox.y0 <= mark.cy <= ln.bbox.y1 and min(mark.width, mark.height) >= MIN_SIDE * ln.bbox.height
        for ln in lines
    )


def _misread_replaced(line: Line, marks: Sequence[BBox]) -> Line:
    """The line with its first word, when it is a bullet misread lying on a mark, as "•": a word
    the engine read, as layout/blocks.py's ``restore_bullets`` gives it (no role: it may be a
    character of the page's text)."""
    if not line.words or not _misread(line.words[0].text) or len(line.words) < 2:
        return line
    first = line.words[0]
    if not any(first.bbox.intersection(m) >= 0.5 * m.area for m in marks):
        return line
    return with_words(line, [Word(BULLET, first.bbox, first.confidence), *line.words[1:]])
