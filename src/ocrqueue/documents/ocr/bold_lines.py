"""Lines set in a bold face on a rendered page, told by the width of their strokes.

The text layer names a line's font; a rendered page has only its ink. A bold face's strokes are
about a third wider than the regular face's at the same size: on a dev NCCN guideline page
(InDesign, 300 dpi) the body lines measured 3.2-3.45 pixels, its headings in bold at the body's
size 4.3-4.9 (scanned: 3.9-4.05 against 4.8-5.3). A line whose strokes are ``BOLD_STROKE`` times the
page's typical line's or wider is marked ``bold``; layout/blocks.bold_heads makes such lines over
prose headings, as on the text layer.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line

BOLD_STROKE = 1.18
# Lines with fewer letters than this are not measured (a page number, a bullet's mark); the
# page's typical stroke is the median of lines with ``BODY_LETTERS`` or more, when there are
# ``MIN_BODY_LINES`` of them.
MIN_LETTERS = 4
BODY_LETTERS = 20
MIN_BODY_LINES = 5
_CROSS = np.ones((3, 3), np.uint8)


def stroke_width(ink: Mask, line: Line, scale: float) -> float | None:
    """Twice the ink's area over its edge's length in ``line``'s box (pixels): a stroke's width."""
    box = line.bbox.scaled(scale)
    x0, y0 = max(0, int(box.x0)), max(0, int(box.y0))
    crop = ink[y0 : int(box.y1) + 1, x0 : int(box.x1) + 1].astype(np.uint8)
    area = int(crop.sum())
    edge = area - int(cv2.erode(crop, _CROSS, borderType=cv2.BORDER_CONSTANT, borderValue=0).sum())
    return 2 * area / edge if edge else None


def with_bold_marked(regions: Sequence[Sequence[Line]], ink: Mask, scale: float) -> list[list[Line]]:
    """``regions`` with each line whose strokes are ``BOLD_STROKE`` times the page's typical
    line's or wider marked bold (none when the page has too few lines of body text to tell)."""
    widths = {id(ln): stroke_width(ink, ln, scale) for lines in regions for ln in lines if _letters(ln) >= MIN_LETTERS}
    body = [w for lines in regions for ln in lines if _letters(ln) >= BODY_LETTERS and (w := widths.get(id(ln)))]
    if len(body) < MIN_BODY_LINES:
        return [list(lines) for lines in regions]
    bar = BOLD_STROKE * statistics.median(body)
    return [[_marked(ln, widths.get(id(ln)), bar) for ln in lines] for lines in regions]


def _marked(line: Line, width: float | None, bar: float) -> Line:
    return replace(line, bold=True) if width is not None and width >= bar else line


def _letters(line: Line) -> int:
    return sum(ch.isalpha() for ch in line.text)
