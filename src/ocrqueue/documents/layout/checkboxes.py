"""Check boxes on a rendered page: small square frames drawn in a form, a survey or an exam's
answer list. An engine reads a frame as brackets and bars ("[_]", "[|", "[ ]", "O"), as noise the
user never wrote; the word it made of one becomes "☐" (empty) or "☒" (marked), with the role
"checkbox". An exam page of nineteen answer boxes read 0.083 CER with them as brackets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.rows import with_words
from ocrqueue.documents.layout.straighten import Pieces, ink_pieces
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.scripts import scripts_of_languages
from ocrqueue.documents.text import mostly_wide

# A box's side, in inches: from a small check box (6.5 pt) to a large one. Smaller, a serif "o" or
# "a" of body text is as square at 300 dpi (0.07 in on a paper's and a statute's pages).
SIDE_IN = (0.09, 0.3)
MAX_ASPECT = 1.33  # of the longer side to the shorter: square, not a rule's corner or a letter
FRAME_BAND = 0.15  # of a side, the band along each edge the frame's ink runs in
FRAME_COVER = 0.8  # of each edge's length the frame covers: "O", "D" and "0" touch theirs in a few places
MAX_FILL = 0.5  # of the box's area the frame's own ink takes at most: a solid square is a bullet
MARKED_INK = 0.05  # ink share inside the frame above which the box is ticked or crossed
# What an engine makes of a frame: brackets, bars, underscores, letters with a round or square
# body; of a ticked or crossed one, the tick or cross too.
BOX_LIKE = frozenset("[]|_()0OoDdCcUuIl1!□■☐☑☒'\"`-")
TICKED_LIKE = BOX_LIKE | frozenset("XxKkVvYy✓✔✗✘*+")
MAX_WORD_WIDTH = 1.6  # of the box's width a word it is read as spans at most
EMPTY, MARKED = "☐", "☒"
WIDE_SCRIPTS = frozenset({"Han", "Japanese", "Hangul"})


@dataclass(frozen=True)
class Checkbox:
    """A frame's box in pixels and whether anything is drawn inside it."""

    box: BBox
    marked: bool


def find_checkboxes(ink: Mask, dpi: int, pieces: Pieces | None = None) -> list[Checkbox]:
    """Square frames of ink standing alone (connected only to themselves); ``pieces``: the ink's
    connected pieces when they were found already."""
    lo, hi = (int(side * dpi) for side in SIDE_IN)
    labels, stats = pieces if pieces is not None else ink_pieces(ink)
    x, y, w, h, area = (stats[:, i] for i in range(5))
    short, long = np.minimum(w, h), np.maximum(w, h)
    candidates = np.flatnonzero(
        (short >= lo) & (long <= hi) & (long <= MAX_ASPECT * short) & (area <= MAX_FILL * w * h)
    )
    found = []
    for i in candidates[candidates > 0]:
        x0, y0, x1, y1 = int(x[i]), int(y[i]), int(x[i] + w[i]), int(y[i] + h[i])
        frame = labels[y0:y1, x0:x1] == i
        band = max(1, int(FRAME_BAND * short[i]))
        edges = (
            frame[:band].any(axis=0),
            frame[-band:].any(axis=0),
            frame[:, :band].any(axis=1),
            frame[:, -band:].any(axis=1),
        )
        if min(float(e.mean()) for e in edges) < FRAME_COVER:
            continue
        inside = ink[y0 + 2 * band : y1 - 2 * band, x0 + 2 * band : x1 - 2 * band]
        marked = inside.size > 0 and float(inside.mean()) > MARKED_INK
        found.append(Checkbox(BBox(x0, y0, x1, y1), marked))
    return found


def mark_checkboxes(lines: Sequence[Line], boxes: Sequence[Checkbox]) -> tuple[Line, ...]:
    """``lines`` (pixels) with each word read from a frame, and little else, as the box's sign,
    and a box the engine left out (a crossed box read as nothing) put in the line it stands on."""
    if not boxes:
        return tuple(lines)
    out = [_marked_line(line, boxes) for line in lines]
    for checkbox in boxes:
        if any(w.role == "checkbox" and w.bbox == checkbox.box for line in out for w in line.words):
            continue
        at = next((i for i, line in enumerate(out) if _stands_on(checkbox.box, line)), None)
        if at is not None:
            out[at] = with_words(out[at], sorted([*out[at].words, _sign(checkbox, None)], key=lambda w: w.bbox.x0))
    return tuple(out)


GAP_BEFORE_LINE = 2.0  # box widths between a left-out box and the line's first word, at most


def _stands_on(box: BBox, line: Line) -> bool:
    """A box no word of ``line`` covers, level with it and inside it or just left of its start.
    Not in a line of Chinese or Japanese: 口, 因 and 回 are square frames, one the engine left out
    is no box."""
    return (
        bool(line.words)
        and not any(mostly_wide(w.text) for w in line.words)
        and line.bbox.y0 <= box.cy <= line.bbox.y1
        and line.bbox.x0 - GAP_BEFORE_LINE * box.width <= box.x0 <= line.bbox.x1
        and not any(w.bbox.intersection(box) > 0 for w in line.words)
    )


def frames_painted(languages: tuple[str, ...]) -> bool:
    """Whether the frames of a page read with ``languages`` may be painted out before it is read:
    not when the page is read for Chinese, Japanese or Korean (口, 回 and Hangul's ㅁ are frames of
    ink too), nor for an engine asked for no languages (RapidOCR reads Chinese)."""
    return bool(languages) and not WIDE_SCRIPTS & set(scripts_of_languages(languages))


def frame_bands(boxes: Sequence[Checkbox], margin: int) -> list[tuple[int, int, int, int]]:
    """The four bands along each box's edges (pixels, widened by ``margin``) its frame is drawn in:
    what is inside (a tick, a cross, a letter in a comb field) is left to be read."""
    bands = []
    for checkbox in boxes:
        x0, y0, x1, y1 = (round(v) for v in checkbox.box)
        band = max(1, round(FRAME_BAND * min(x1 - x0, y1 - y0))) + margin
        x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
        bands += [(x0, y0, x1, y0 + band), (x0, y1 - band, x1, y1), (x0, y0, x0 + band, y1), (x1 - band, y0, x1, y1)]
    return bands


def _sign(checkbox: Checkbox, confidence: float | None) -> Word:
    return Word(MARKED if checkbox.marked else EMPTY, checkbox.box, confidence, role="checkbox")


def _marked_line(line: Line, boxes: Sequence[Checkbox]) -> Line:
    """The words read from each frame near ``line`` (one word round it, or several inside it:
    "[" and "]") made one checkbox word."""
    near = [c for c in boxes if line.bbox.intersection(c.box) > 0]
    if not line.words or not near:
        return line
    words: list[Word] = []
    taken: Checkbox | None = None
    for word in line.words:
        checkbox = next((c for c in near if _read_from(word, c)), None)
        if checkbox is None:
            words.append(word)
        elif checkbox is not taken:
            words.append(_sign(checkbox, word.confidence))
        taken = checkbox
    if len(words) == len(line.words) and all(w is old for w, old in zip(words, line.words, strict=True)):
        return line
    return with_words(line, words)


def _read_from(word: Word, checkbox: Checkbox) -> bool:
    """Whether ``word`` is what the engine made of the frame: it holds the frame's centre or lies
    inside it, spans little more, and is made of what a frame looks like."""
    box = checkbox.box
    return (
        (word.bbox.contains_center_of(box) or box.contains_center_of(word.bbox))
        and word.bbox.width <= MAX_WORD_WIDTH * box.width
        and set(word.text) <= (TICKED_LIKE if checkbox.marked else BOX_LIKE)
    )
