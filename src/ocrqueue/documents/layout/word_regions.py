"""Lines already read, cut into column-aware regions by XY-cut of their words' boxes.

``cut_regions`` cuts a text layer's whole page (textlayer/page.py) and the lines of one area read
by OCR: a table the layout model saw where the lines are not a table (the boxes of a
flowchart, columns of prose) is read as text, region by region, as the page around it is. Read as
one block, or as one table, its lines were joined straight across its columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.raster import MIN_GUTTER_IN
from ocrqueue.documents.layout.rows import split_line
from ocrqueue.documents.layout.straighten import GRID_DPI
from ocrqueue.documents.layout.word_spaces import justified_spaces
from ocrqueue.documents.layout.xycut import xy_cut_page
from ocrqueue.documents.model import Line, Word

GRID_SCALE = GRID_DPI / 72  # grid cells per point
WORD_BOX_TRIM = 0.2  # share of a word box's height left off at its top and at its bottom


def cut_regions(lines: Sequence[Line], frame: BBox, margin_band: float, solid: Sequence[BBox] = ()) -> list[BBox]:
    """Column-aware regions in reading order (points), from the lines' word boxes drawn on a grid
    of ``GRID_DPI`` over ``frame``, with ``solid`` boxes drawn whole (tables), cut by XY-cut. A
    word box runs from its font's ascent to its descent, so the lines of a paragraph set with
    little leading touch on the grid: a paragraph made one band of ink, the "line height"
    (xycut's gutter for its type) grew to a paragraph's, and the gutters of a newspaper's columns
    (0.25 in) or of a two-column exam sheet were too narrow to cut. Drawn without the top and
    bottom of each box, lines stay apart. A justified line's word spaces are drawn too
    (layout/word_spaces.py): two short lines of a newspaper's column whose wide spaces overlap
    were cut apart as columns."""
    grid = np.zeros((int(frame.height * GRID_SCALE) + 1, int(frame.width * GRID_SCALE) + 1), dtype=bool)
    boxes = [w.bbox for ln in lines for w in ln.words] + justified_spaces(list(lines))
    trimmed = [BBox(b.x0, b.y0 + WORD_BOX_TRIM * b.height, b.x1, b.y1 - WORD_BOX_TRIM * b.height) for b in boxes]
    for box in [*trimmed, *solid]:
        grid[
            int((box.y0 - frame.y0) * GRID_SCALE) : math.ceil((box.y1 - frame.y0) * GRID_SCALE),
            int((box.x0 - frame.x0) * GRID_SCALE) : math.ceil((box.x1 - frame.x0) * GRID_SCALE),
        ] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), margin_band, GRID_DPI)
    return [
        BBox(
            frame.x0 + r.x0 / GRID_SCALE,
            frame.y0 + r.y0 / GRID_SCALE,
            frame.x0 + r.x1 / GRID_SCALE,
            frame.y0 + r.y1 / GRID_SCALE,
        )
        for r in leaves
    ]


def word_regions(lines: Sequence[Line]) -> list[list[Line]]:
    """``lines`` (points) in regions, in reading order (``cut_regions`` over their extent); a line
    goes piece by piece to the regions holding its words' centres (a line the engine read across
    two boxes of a flowchart is two pieces)."""
    words = [w for ln in lines for w in ln.words]
    if not words:
        return []
    regions = cut_regions(lines, union(w.bbox for w in words), 0.0)
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
