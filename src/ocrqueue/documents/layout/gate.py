"""Whether a page is worth running the layout model on, judged from its ink in a few milliseconds.

The model costs about as much CPU as Tesseract reading the page, and on a page of plain text
(columns, headings, lists, ruled tables: all found by the geometric rules) it adds nothing. It is
run where the rules cannot see what is there: a drawing (an ink shape taller than a line of text
that is not a ruled table's grid) or columns side by side of which one is narrow, or three or
more (a table without rules, whose columns XY-cut separates like text columns). Columns side by
side share two lines of text at least (``MIN_SHARED_IN``): a running head or foot and the page
number beside it, one line apart from the body, are no table (they sent every page of LaTeX
manuals and news to the model, about 0.18 s of one core a page, for boxes that changed nothing).
"""

from __future__ import annotations

import cv2
import numpy as np

from ocrqueue.documents.layout.raster import Rules
from ocrqueue.documents.layout.straighten import GRID_DPI
from ocrqueue.documents.layout.xycut import Mask

DRAWING_MIN_IN = 0.5  # taller than any line of body text or heading up to ~36 pt
DRAWING_MIN_WIDTH_IN = 0.1  # a thin vertical line is a rule, not a drawing
GRID_MATCH_IN = 0.05
NARROW_COLUMN_IN = 1.5
SIDE_BY_SIDE = 0.5  # share of the shorter region's height two regions must share
MIN_SHARED_IN = 0.25  # and at least this height: two lines of body text, more than one line of a heading

Box = tuple[int, int, int, int]


def needs_layout_model(grid: Mask, rules: Rules | None, regions: list[Box], dpi: int) -> bool:
    """``grid`` is the page's coarse ink (layout/raster.py ``coarse``, GRID_DPI cells per inch)."""
    return _drawing(grid, rules, dpi) or _table_like_columns(regions, dpi)


def _drawing(grid: Mask, rules: Rules | None, dpi: int) -> bool:
    """An ink component tall and wide enough to be a drawing, which is not the frame of a ruled
    table found on the page."""
    factor = max(1, round(dpi / GRID_DPI))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grid.view(np.uint8), connectivity=8)
    min_h, min_w = DRAWING_MIN_IN * GRID_DPI, DRAWING_MIN_WIDTH_IN * GRID_DPI
    tol = GRID_MATCH_IN * dpi + factor
    frames = [(g.x0, g.y0, g.x1, g.y1) for g in rules.grids] if rules is not None else []
    for x, y, w, h, _area in stats[1:count]:
        if h < min_h or w < min_w:
            continue
        box = (int(x) * factor, int(y) * factor, int(x + w) * factor, int(y + h) * factor)
        if not any(all(abs(a - b) <= tol for a, b in zip(box, frame, strict=True)) for frame in frames):
            return True
    return False


def _table_like_columns(regions: list[Box], dpi: int) -> bool:
    for i, a in enumerate(regions):
        beside = [b for j, b in enumerate(regions) if j != i and _side_by_side(a, b, dpi)]
        narrow = any(r[2] - r[0] < NARROW_COLUMN_IN * dpi for r in (a, *beside))
        if len(beside) >= 2 or (beside and narrow):
            return True
    return False


def _side_by_side(a: Box, b: Box, dpi: int) -> bool:
    shared = min(a[3], b[3]) - max(a[1], b[1])
    apart = a[2] <= b[0] or b[2] <= a[0]
    return apart and shared > SIDE_BY_SIDE * min(a[3] - a[1], b[3] - b[1]) and shared >= MIN_SHARED_IN * dpi
