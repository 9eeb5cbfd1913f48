"""Charts the layout model does not box, found from their ink and the words read on it.

A chart's axes, ticks and plotted curves are one piece of ink spanning an inch or more both ways
while covering little of its box: strokes, not letters or a picture. Tesseract reads the strokes
inside (dotted grid lines, curves) as lines of junk at word confidence 0.0-0.3 ("ee ee ee",
"Wesel asa ag a"), and the passes that look for lost lines read their dashes again as "I" and
"1". A confidence cut over the whole page loses real text (a Doxygen heading read at 0.12 on a
dev scan), so the confidence of the words only counts on such a drawing: where most of the
characters read in its box are read below ``LOW_CONFIDENCE``, the box is a figure island (its
words kept as the figure's text, out of the Markdown flow) and the words read below
``LOW_CONFIDENCE`` in it, or made of marks only, are the strokes', and are dropped
(``without_strokes``). A frame drawn round text is no such drawing: its ink is all at its edges
(``drawing_boxes``); a ruled table's or form's grid is left to it (ocr/whole_page.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ocrqueue.documents.geometry import PixelBox, share_inside
from ocrqueue.documents.layout.rows import split_line
from ocrqueue.documents.layout.straighten import Pieces
from ocrqueue.documents.model import Line, Word

DRAWING_MIN_IN = 1.0  # a drawing's piece of ink spans this much both ways ...
DRAWING_MAX_FILL = 0.25  # ... and covers at most this share of its box: strokes, not a picture or a letter
DRAWING_INSET_IN = 0.1  # ink this far inside a drawing's box is inside its frame ...
DRAWING_MIN_INNER = 0.1  # ... and this share of its ink is, at least
LOW_CONFIDENCE = 0.5  # a word read below this on a drawing's strokes is the strokes' reading
LOW_SHARE = 0.5  # a drawing is a chart when this share of the characters read in its box are read low ...
MIN_LOW_CHARS = 8  # ... and at least this many


def drawing_boxes(pieces: Pieces, dpi: int) -> list[PixelBox]:
    """Boxes (pixels) of the ink ``pieces`` (layout/straighten.py ``ink_pieces``) that span
    ``DRAWING_MIN_IN`` both ways, fill at most ``DRAWING_MAX_FILL`` of their box and have
    ``DRAWING_MIN_INNER`` of their ink or more ``DRAWING_INSET_IN`` inside its edges: a chart's curves
    and grid run into its frame (dev nlp2004slides p. 23: 0.34-0.37), while a frame drawn round
    text has all its ink at its edges, and its text, however poorly read (a script read with
    another's model), is never taken for a chart's strokes."""
    labels, stats = pieces
    least, inset = DRAWING_MIN_IN * dpi, round(DRAWING_INSET_IN * dpi)
    out: list[PixelBox] = []
    for number, (x, y, w, h, area) in enumerate(stats.tolist()):
        if number == 0 or w < least or h < least or area > DRAWING_MAX_FILL * w * h:
            continue
        inner = int(np.count_nonzero(labels[y + inset : y + h - inset, x + inset : x + w - inset] == number))
        if inner >= DRAWING_MIN_INNER * area:
            out.append((x, y, x + w, y + h))
    return out


def _inside(word: Word, box: PixelBox) -> bool:
    return box[0] <= word.bbox.cx <= box[2] and box[1] <= word.bbox.cy <= box[3]


def _low(word: Word) -> bool:
    return (word.confidence or 0.0) < LOW_CONFIDENCE


def chart_boxes(drawings: Sequence[PixelBox], lines: Sequence[Line], taken: Sequence[PixelBox]) -> list[PixelBox]:
    """The ``drawings`` (pixels) that are charts by the words of ``lines`` (pixels) read in them:
    most of their characters read low. A drawing lying mostly in an island already found or in a
    ruled grid (a table, a form's boxes, a figure the model saw: ``taken``) is left to it."""
    words = [w for ln in lines for w in ln.words if w.text.strip()]
    out: list[PixelBox] = []
    for box in drawings:
        if any(share_inside(box, i) > 0.5 or share_inside(i, box) > 0.5 for i in taken):
            continue
        inside = [w for w in words if _inside(w, box)]
        low = sum(len(w.text.strip()) for w in inside if _low(w))
        total = sum(len(w.text.strip()) for w in inside)
        if low >= MIN_LOW_CHARS and low >= LOW_SHARE * total:
            out.append(box)
    return out


def without_strokes(lines: Sequence[Line], charts: Sequence[PixelBox]) -> tuple[Line, ...]:
    """``lines`` (pixels) without the strokes' readings in ``charts``: the words read low there,
    and those of marks only (``|``, ``-``, ``**``: a tick, a dash of a grid line). A line most of
    whose characters are such readings goes whole: Tesseract runs a tick label into the dotted
    grid line beside it ("0.012---.- ----b <2"), and the label's ink, left uncovered, is read
    again on its own by the lost-ink pass (ocr/lost_ink.py)."""
    if not charts:
        return tuple(lines)
    out: list[Line] = []
    for line in lines:
        words = line.words
        kept = tuple(w for w in words if not _stroke(w, charts))
        if len(kept) == len(words):
            out.append(line)
        elif 2 * _chars(kept) > _chars(words):
            out.append(split_line(line, list(kept)))
    return tuple(out)


def _stroke(word: Word, charts: Sequence[PixelBox]) -> bool:
    marks = not any(c.isalnum() for c in word.text)
    return (_low(word) or marks) and any(_inside(word, c) for c in charts)


def _chars(words: Sequence[Word]) -> int:
    return sum(len(w.text.strip()) for w in words)
