"""Lines already read, cut into column-aware regions by XY-cut of their words' boxes.

What the text layer does for a whole page (textlayer/page.py ``_regions``), for the lines of one
area read by OCR: a table the layout model saw where the lines are not a table (the boxes of a
flowchart, columns of prose) is read as text, region by region, as the page around it is. Read as
one block, or as one table, its lines were joined straight across its columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.rows import split_line
from ocrqueue.documents.layout.straighten import GRID_DPI
from ocrqueue.documents.layout.word_spaces import justified_spaces
from ocrqueue.documents.layout.xycut import xy_cut_page
from ocrqueue.documents.model import Line, Word

GRID_SCALE = GRID_DPI / 72  # grid cells per point
MIN_GUTTER_IN = 0.2  # as layout/raster.py
WORD_BOX_TRIM = 0.2  # share of a word box's height left off at its top and bottom (as on the text layer)


def word_regions(lines: Sequence[Line]) -> list[list[Line]]:
    """``lines`` (points) in regions, in reading order: their words' boxes (less the top and
    bottom fifth, so lines set close stay apart) and justified lines' spaces drawn on a grid of
    ``GRID_DPI`` and cut by XY-cut; a line goes piece by piece to the regions holding its words'
    centres (a line the engine read across two boxes of a flowchart is two pieces)."""
    words = [w for ln in lines for w in ln.words]
    if not words:
        return []
    boxes = [w.bbox for w in words] + justified_spaces(list(lines))
    x0, y0 = min(b.x0 for b in boxes), min(b.y0 for b in boxes)
    x1, y1 = max(b.x1 for b in boxes), max(b.y1 for b in boxes)
    grid = np.zeros((int((y1 - y0) * GRID_SCALE) + 2, int((x1 - x0) * GRID_SCALE) + 2), dtype=bool)
    for b in boxes:
        top, bottom = b.y0 + WORD_BOX_TRIM * b.height, b.y1 - WORD_BOX_TRIM * b.height
        grid[
            int((top - y0) * GRID_SCALE) : max(int((top - y0) * GRID_SCALE) + 1, math.ceil((bottom - y0) * GRID_SCALE)),
            int((b.x0 - x0) * GRID_SCALE) : max(int((b.x0 - x0) * GRID_SCALE) + 1, math.ceil((b.x1 - x0) * GRID_SCALE)),
        ] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), 0.0, GRID_DPI)
    regions = [
        BBox(x0 + r.x0 / GRID_SCALE, y0 + r.y0 / GRID_SCALE, x0 + r.x1 / GRID_SCALE, y0 + r.y1 / GRID_SCALE)
        for r in leaves
    ]
    if not regions:
        return [list(lines)]
    out: list[list[Line]] = [[] for _ in regions]
    for line in lines:
        if not line.words:
            out[_region_of(line.bbox, regions)].append(line)
            continue
        current: int | None = None
        part: list[Word] = []
        for word in line.words:
            at = _region_of(word.bbox, regions)
            if at != current and part and current is not None:
                out[current].append(split_line(line, part))
                part = []
            current = at
            part.append(word)
        if part and current is not None:
            out[current].append(split_line(line, part))
    return [region for region in out if region]


def _region_of(box: BBox, regions: Sequence[BBox]) -> int:
    """The region holding the box's centre, else the nearest one."""
    for i, r in enumerate(regions):
        if r.contains_center_of(box):
            return i

    def distance(r: BBox) -> float:
        dx = max(r.x0 - box.cx, 0.0, box.cx - r.x1)
        dy = max(r.y0 - box.cy, 0.0, box.cy - r.y1)
        return dx * dx + dy * dy

    return min(range(len(regions)), key=lambda i: distance(regions[i]))
