"""The spaces of justified lines, so a column's layout does not take them for gutters.

A justified line spreads its slack evenly over its word spaces: in a newspaper's narrow column a
short line's spaces grow wider than the gutter between columns, and two such lines one above the
other whose spaces happen to overlap looked like a column break to XY-cut (a paragraph read as
"special" / "need" / "to", each a block of its own). A justified line is flush at both ends with
lines near it (the paragraph's measure); a table's row is not (its last cell is ragged). Its word
spaces are as wide as its narrowest, give or take ``EVEN_SPACE``; a gutter the line runs across (a
producer writing a page a baseline at a time) is wider, and stays open. A line of two words has one
space and nothing to compare it with: it is a justified line's when a line near it with the same
ends spreads two or more spaces evenly (rows of a label and a right-aligned figure spread none).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Line

EVEN_SPACE = 1.5  # a word space is at most this many times the line's narrowest space
MIN_SPACE = 0.1  # line heights: a narrower gap between two words is not a space
FLUSH = 0.3  # line heights: ends this close are flush
NEAR = 2.0  # line heights: how far apart the tops of two lines next to each other may be
WINDOW = 4  # lines: how far before or after a line the paragraph's measure is looked for


def _spaces(line: Line) -> list[tuple[BBox, float]]:
    """The gaps between ``line``'s words wide enough to be spaces, as boxes with their widths."""
    out = []
    for a, b in itertools.pairwise(line.words):
        gap = b.bbox.x0 - a.bbox.x1
        if gap >= MIN_SPACE * line.bbox.height:
            out.append((BBox(a.bbox.x1, line.bbox.y0, b.bbox.x0, line.bbox.y1), gap))
    return out


def _even(spaces: list[tuple[BBox, float]]) -> list[BBox]:
    narrowest = min((gap for _, gap in spaces), default=0.0)
    return [box for box, gap in spaces if gap <= EVEN_SPACE * narrowest]


def _flush(a: Line, b: Line, apart: int) -> bool:
    """Whether ``a`` and ``b``, ``apart`` lines from each other, share both ends."""
    height = max(a.bbox.height, b.bbox.height)
    return (
        abs(a.bbox.y0 - b.bbox.y0) <= NEAR * height * apart
        and abs(a.bbox.x0 - b.bbox.x0) <= FLUSH * height
        and abs(a.bbox.x1 - b.bbox.x1) <= FLUSH * height
    )


def justified_spaces(lines: Sequence[Line]) -> list[BBox]:
    """Boxes over the word spaces of the justified lines among ``lines`` (in the text layer's
    order, a paragraph's lines one after another): a line flush at both ends with one of the
    ``WINDOW`` lines before or after it, one of the two spreading two or more spaces evenly."""
    spaces = [_spaces(line) for line in lines]
    spread = [len(s) >= 2 and len(_even(s)) == len(s) for s in spaces]
    out: list[BBox] = []
    for i, line in enumerate(lines):
        near = range(max(0, i - WINDOW), min(len(lines), i + WINDOW + 1))
        if spaces[i] and any(j != i and (spread[i] or spread[j]) and _flush(line, lines[j], abs(i - j)) for j in near):
            out.extend(_even(spaces[i]))
    return out
