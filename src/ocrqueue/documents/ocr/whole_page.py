"""The whole page at once: the engine reads the page's content box (the part with ink) a single
time, as it would read the page on its own, while the layout model looks at the same page on
another thread; the engine's words are then split into the layout's regions, tables (by cell)
and formulas by where their centres fall.

Reading each region separately would make the engine analyse the page's layout once per region
and pay its fixed cost per crop: on this machine that more than doubled the time of a page.
Ruling lines are painted out first, so table borders never come back as "|" or "_".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.geometry import BBox, PixelBox, fringed, share_inside
from ocrqueue.documents.layout.blocks import body_size
from ocrqueue.documents.layout.cells import grid_cells_to_points, table_text
from ocrqueue.documents.layout.checkboxes import (
    Checkbox,
    find_checkboxes,
    frame_bands,
    frames_painted,
    mark_checkboxes,
)
from ocrqueue.documents.layout.combs import find_bars
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.layout.gate import needs_layout_model
from ocrqueue.documents.layout.leaders import (
    Leader,
    find_leaders,
    holds_leader,
    mark_leaders,
    painted_out,
)
from ocrqueue.documents.layout.raster import Island, IslandKind, PageLayout, RasterLayout, analyse
from ocrqueue.documents.layout.row_grid import row_grid_tables
from ocrqueue.documents.layout.rows import merge_rows, split_line
from ocrqueue.documents.layout.stacked_rows import split_aligned_rows
from ocrqueue.documents.layout.straighten import ink_pieces
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.vertical import is_vertical, vertical_blocks
from ocrqueue.documents.layout.xycut import joined_runs
from ocrqueue.documents.model import Block, Line, Table, Word
from ocrqueue.documents.ocr.assemble import (
    Figures,
    IslandTask,
    OcrPage,
    in_reading_order,
    island_blocks,
    islands_wanted,
    mean_confidence,
    moved,
    numbers_after_leaders,
    region_blocks,
    to_points,
)
from ocrqueue.documents.ocr.charts import chart_boxes, drawing_boxes, without_strokes
from ocrqueue.documents.ocr.fill_in_blanks import find_rule_segments, with_blanks
from ocrqueue.documents.ocr.lost_ink import read_lost_ink
from ocrqueue.documents.ocr.raster_bullets import find_bullets, mark_bullets
from ocrqueue.documents.ocr.table_cells import cells_read_again
from ocrqueue.documents.resources import PipelineResources


def start_layout(page: OcrPage, use_model: bool, resources: PipelineResources) -> Future[PageLayout]:
    """The page's layout, found on one of ``resources``' threads while the engine reads. Without a
    model, or when the page holds nothing the model would add (layout/gate.py), ``detected`` stays
    None and the geometric rules alone place text, tables and figures. It depends on the
    straightened page and its rules only, not on the languages read with: a page read again with
    other languages is split by the same layout (ocr/page.py keeps it; the layout model costs
    about 0.2 s of one core on a 200-dpi scan)."""
    return resources.beside(_page_layout, page, use_model, resources)


def read_whole_page(page: OcrPage, pending: Future[PageLayout]) -> tuple[list[Block], Figures]:
    """The page read whole by its engine and split by its layout (``start_layout``)."""
    # The ink's connected pieces, labelled once for the leaders and the check boxes (each labelled
    # the page's ink itself, about 0.02 s of one core on a 200-dpi scan), and let go before the
    # engine reads: the labels take four bytes a pixel.
    pieces = ink_pieces(page.ink)
    leaders = find_leaders(page.ink, page.dpi, pieces)
    checkboxes = find_checkboxes(page.ink, page.dpi, pieces)
    bullets = find_bullets(page.dpi, pieces)
    drawings = drawing_boxes(pieces, page.dpi)
    bars = find_bars(page.ink, page.rules.mask if page.rules is not None else None, page.dpi, pieces)
    del pieces
    image, dx, dy = _engine_view(page, leaders, checkboxes if frames_painted(page.languages) else (), bars)
    lines = page.engine.recognize(image, RecognitionRequest(page.languages, "page", page.dpi)).lines
    if dx or dy:
        lines = tuple(moved(ln, dx, dy) for ln in lines)
    lines = mark_bullets(mark_checkboxes(lines, checkboxes), bullets)
    if page.rules is not None:
        lines = with_blanks(lines, find_rule_segments(page.rules.mask, page.rules.grids, page.dpi))
    lines = numbers_after_leaders(page, mark_leaders(lines, leaders, page.dpi))
    layout, detected = pending.result()
    charts = _charts(page, lines, layout, drawings)
    layout, lines = _with_charts(page, lines, layout, detected, charts)
    if not is_vertical(lines):
        lines = (*lines, *_lost_lines(page, lines, layout))
        blank = [
            *painted_out(leaders, page.dpi),
            *(_pixels(c.box) for c in checkboxes),
            *map(_pixels, bullets),
            *map(_pixels, bars),
        ]
        lines = (*lines, *read_lost_ink(page, lines, layout, blank))
    if is_vertical(lines):
        # Columns read with a vertical model: the layout's regions and islands are found for
        # rows and would cut them.
        return vertical_blocks([to_points(ln, 0, 0, page.scale) for ln in lines]), Figures(page)
    layout, grids = _with_row_grids(page, lines, layout, detected, charts)
    parts = _split(lines, layout)
    region_lines = [[to_points(ln, 0, 0, page.scale) for ln in merge_rows(p)] for p in parts.regions]
    if parts.orphans:
        region_lines.append([to_points(ln, 0, 0, page.scale) for ln in merge_rows(parts.orphans)])
        regions = [*layout.regions, _union_px(parts.orphans)]
        layout = RasterLayout(regions, layout.islands, layout.island_after, layout.rules)
    figures = Figures(page)
    per_region, notes = region_blocks(page, layout, region_lines, detected, figures)
    body = body_size(ln for lines in region_lines for ln in lines)
    per_island = [
        [grids[isl.box]]
        if isl.grid is None and isl.box in grids
        else island_blocks(page, isl, figures, _IslandWords(page, p), body)
        for isl, p in zip(layout.islands, parts.islands, strict=True)
    ]
    return in_reading_order(layout, per_region, per_island, notes), figures


def _charts(
    page: OcrPage, lines: tuple[Line, ...], layout: RasterLayout, drawings: Sequence[PixelBox]
) -> list[PixelBox]:
    """The ``drawings`` that are charts (ocr/charts.py), but for those of the islands and of ruled
    grids of cells side by side (a table's, a form's boxes). A grid of one column is a box round
    text, and one of a single cell a frame: a drawn chart's frame, its dashed grid lines breaking
    it into columns no rule parts, was a form of one cell."""
    rules = page.rules.grids if page.rules is not None else []
    grids = [(g.x0, g.y0, g.x1, g.y1) for g in rules if g.n_cols > 1 and len(g.cells) > 1]
    return chart_boxes(drawings, lines, [*(i.box for i in layout.islands), *grids])


def _with_charts(
    page: OcrPage,
    lines: tuple[Line, ...],
    layout: RasterLayout,
    detected: list[LayoutBox] | None,
    charts: Sequence[PixelBox],
) -> tuple[RasterLayout, tuple[Line, ...]]:
    """The layout with the charts the layout model did not box made figures, and the lines
    (pixels) without the words read low on their strokes (ocr/charts.py). Found before the lost
    lines and the lost ink are looked for: outside the islands, a chart's dashes read as "I"."""
    if not charts:
        return layout, lines
    return analyse(page.straight, page.rules, page.dpi, _wanted(detected, charts)), without_strokes(lines, charts)


def _wanted(detected: list[LayoutBox] | None, charts: Sequence[PixelBox]) -> list[tuple[IslandKind, PixelBox]]:
    """The islands the layout model found, and the charts found from the ink as figures."""
    return [*islands_wanted(detected or []), *(("figure", box) for box in charts)]


def _with_row_grids(
    page: OcrPage,
    lines: tuple[Line, ...],
    layout: RasterLayout,
    detected: list[LayoutBox] | None,
    charts: Sequence[PixelBox],
) -> tuple[RasterLayout, dict[PixelBox, Block]]:
    """The layout with the grids of short cells among the engine's words (layout/row_grid.py, as
    on the text layer) made tables, and the table block of each by its island's box. A grid's
    columns are cut by XY-cut like columns of text wherever a gap runs through it, and its
    narrow columns of numbers, read by the engine as blocks of their own, came back read down
    (a scanned Calc sheet: "North East East West ..."), which the regions side by side of
    aligned_columns.py could not join: its numbers had been cut into slices of a few rows. A
    grid found where the layout model saw a table without rules, or a figure it fills the most
    of, takes its place; ruled tables and formulas keep their words."""
    if page.rules is None:  # tables are not looked for
        return layout, {}
    ruled = [i.box for i in layout.islands if i.kind == "formula" or (i.kind == "table" and i.grid is not None)]
    found = row_grid_tables(
        [to_points(ln, 0, 0, page.scale) for ln in lines], [BBox(*box).scaled(1 / page.scale) for box in ruled]
    )
    grids = {_px_box(b.bbox, page.scale): b for b in found}
    # A figure the model saw is the grid's when the grid fills most of it (the model took a page's
    # grid of figures for a picture); a grid that fills a small part of a figure is its labels.
    figures = [i.box for i in layout.islands if i.kind == "figure"]
    grids = {
        g: b
        for g, b in grids.items()
        if not any(share_inside(g, f) > GRID_IN_FIGURE and share_inside(f, g) < GRID_FILLS_FIGURE for f in figures)
    }
    if not grids:
        return layout, {}
    wanted = [
        (kind, box)
        for kind, box in _wanted(detected, charts)
        if kind == "formula" or not any(share_inside(box, g) > 0.3 or share_inside(g, box) > 0.3 for g in grids)
    ]
    wanted += [("table", box) for box in grids]
    return analyse(page.straight, page.rules, page.dpi, wanted), grids


GRID_IN_FIGURE = 0.5  # share of a grid's area inside a figure that makes it the figure's ...
GRID_FILLS_FIGURE = 0.5  # ... unless it fills this share of the figure


def _px_box(box: BBox, scale: float) -> PixelBox:
    """A box in points as the pixels it covers, a pixel wider each side."""
    return (
        math.floor(box.x0 * scale) - 1,
        math.floor(box.y0 * scale) - 1,
        math.ceil(box.x1 * scale) + 1,
        math.ceil(box.y1 * scale) + 1,
    )


# Lines the engine's page reading leaves out: Tesseract's page layout analysis drops some lines of
# a page whole (two full lines of a Persian dev page of gnome-terminal's messages at 300 dpi, with
# PSM 3, 4 and 6 alike, and a line of a Chromium-printed Persian page at 200 dpi); read on their
# own as a raw line (PSM 13) they come back. A band of a text region's ink that no line covers,
# LOST_MIN to LOST_LINE line heights tall, is read again as one line; up to LOST_MAX, as a block.
# Its lines are kept when read with LOST_MIN_CONFIDENCE or more and holding three letters.
LOST_MIN = 0.6
LOST_LINE = 1.6
LOST_MAX = 3.5
LOST_MIN_CONFIDENCE = 0.6


def _lost_lines(page: OcrPage, lines: tuple[Line, ...], layout: RasterLayout) -> list[Line]:
    """Lines (page pixels) read from the bands of the text regions' ink that no line of the
    engine's reading covers: the rules and the islands (figures, tables, formulas) left out."""
    heights = sorted(ln.bbox.height for ln in lines if ln.text.strip())
    if not heights:
        return []
    height = heights[len(heights) // 2]
    ink = page.ink.copy()
    if page.rules is not None:
        ink &= ~page.rules.mask
    for island in layout.islands:
        x0, y0, x1, y1 = island.box
        ink[y0:y1, x0:x1] = False
    found: list[Line] = []
    for x0, y0, x1, y1 in layout.regions:
        rows = ink[y0:y1, x0:x1].sum(axis=1) >= 2
        for ln in lines:
            if ln.bbox.x0 < x1 and ln.bbox.x1 > x0:
                rows[max(0, int(ln.bbox.y0) - y0) : max(0, int(ln.bbox.y1) + 1 - y0)] = False
        for top, bottom in joined_runs(rows, gap=max(1, round(height / 6))):
            if LOST_MIN * height <= bottom - top <= LOST_MAX * height:
                task: Literal["line", "cell"] = "line" if bottom - top <= LOST_LINE * height else "cell"
                read = _read_band(page, (x0, y0 + top, x1, y0 + bottom), round(height / 4), task)
                if not read and task == "cell":
                    read = _read_band_as_two_lines(page, ink, (x0, y0 + top, x1, y0 + bottom), round(height / 4))
                found.extend(read)
    return found


def _read_band_as_two_lines(
    page: OcrPage, ink: npt.NDArray[np.bool_], box: tuple[int, int, int, int], pad: int
) -> list[Line]:
    """A band read as a block that gave nothing, read again as two lines, cut at its row of least
    ink in its middle two fifths: Tesseract read nothing of a two-line band of a dev Arabic scan
    with PSM 6 (gedit-ar p. 2, its first paragraph), and both lines alone (CER 0.168 -> 0.100)."""
    x0, y0, x1, y1 = box
    profile = ink[y0:y1, x0:x1].sum(axis=1)
    low, high = round(0.3 * len(profile)), round(0.7 * len(profile))
    if high <= low:
        return []
    cut = y0 + low + int(np.argmin(profile[low:high]))
    return [ln for top, bottom in ((y0, cut), (cut, y1)) for ln in _read_band(page, (x0, top, x1, bottom), pad, "line")]


def _read_band(page: OcrPage, box: tuple[int, int, int, int], pad: int, task: Literal["line", "cell"]) -> list[Line]:
    """The lines read with confidence in a band of the page (pixels)."""
    height, width = page.straight.gray.shape
    x0, y0 = max(0, box[0] - pad), max(0, box[1] - pad)
    x1, y1 = min(width, box[2] + pad), min(height, box[3] + pad)
    crop = Image.fromarray(page.straight.gray[y0:y1, x0:x1])
    out = page.engine.recognize(crop, RecognitionRequest(page.languages, task, page.dpi)).lines
    return [
        moved(ln, x0, y0)
        for ln in out
        if (ln.confidence or 0.0) >= LOST_MIN_CONFIDENCE and sum(c.isalpha() for c in ln.text) >= 3
    ]


def _page_layout(page: OcrPage, use_model: bool, resources: PipelineResources) -> PageLayout:
    layout = analyse(page.straight, page.rules, page.dpi)
    if not use_model or not needs_layout_model(page.straight.grid, page.rules, layout.regions, page.dpi):
        return layout, None
    model = resources.layout_model()
    if model is None:
        return layout, None
    detected = model.detect(page.straight.gray)
    return analyse(page.straight, page.rules, page.dpi, islands_wanted(detected)), detected


def _engine_view(
    page: OcrPage, leaders: Sequence[Leader], checkboxes: Sequence[Checkbox], bars: Sequence[BBox]
) -> tuple[Image.Image, int, int]:
    """What the engine reads, and where it lies on the page: the page's content box (the rest
    is paper, which only costs the engine time), with the rules painted white, widened by a few
    pixels: on scans the grey fringe the ink threshold leaves along a rule is still read as "|";
    the dot leaders painted white: Tesseract reads their dots as letters and, beside them,
    misreads the entry they follow ("pages" as "pageS"; a scanned contents page's entries as
    "AISIA pD"); and the check boxes' frames (layout/checkboxes.py ``frame_bands``): a frame
    close to its label was read into it ("[_]SEPARATION", "|COAST"), and mark_checkboxes puts
    the box's sign where the engine then reads nothing; and the bars of a form's boxes left of
    its rules (layout/combs.py), which it reads as "|"."""
    height, width = page.straight.gray.shape
    x0, y0, x1, y1 = page.straight.content or (0, 0, width, height)
    rules = page.rules.mask[y0:y1, x0:x1] if page.rules is not None else None
    if rules is not None and not rules.any():
        rules = None
    if rules is None and not leaders and not checkboxes and not bars and (x1 - x0, y1 - y0) == (width, height):
        return page.image, 0, 0
    gray = page.straight.gray[y0:y1, x0:x1].copy()
    margin = max(1, page.dpi // 100)
    if rules is not None:
        mask = np.ascontiguousarray(rules).view(np.uint8)
        gray[cv2.dilate(mask, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8)).view(bool)] = 255
    for lx0, ly0, lx1, ly1 in [
        *painted_out(leaders, page.dpi),
        *frame_bands(checkboxes, margin),
        *fringed(bars, page.dpi),
    ]:
        gray[max(0, ly0 - y0) : max(0, ly1 - y0), max(0, lx0 - x0) : max(0, lx1 - x0)] = 255
    return Image.fromarray(gray), x0, y0


@dataclass
class _Parts:
    """Line pieces (pixels) per text region and per island, and pieces that fell in neither."""

    regions: list[list[Line]]
    islands: list[list[Line]]
    orphans: list[Line] = field(default_factory=list)


def _split(lines: tuple[Line, ...], layout: RasterLayout) -> _Parts:
    """Cut each line where its words fall in different regions or islands. A word outside every
    region (ink too faint or small for the layout's coarse grid) goes to the nearest region. A
    line holding a dot leader goes whole where its first word does: the layout sees too little ink
    in the dots to join a contents entry to its page number, and cuts a column of numbers off."""
    parts = _Parts([[] for _ in layout.regions], [[] for _ in layout.islands])
    for line in lines:
        words = line.words or (Word(line.text, line.bbox, line.confidence),)
        groups: dict[tuple[bool, int], list[Word]] = {}
        whole = _target(words[0].bbox, layout) if holds_leader(line) else None
        for word in words:
            groups.setdefault(whole or _target(word.bbox, layout), []).append(word)
        for (island, index), group in groups.items():
            piece = split_line(line, group) if line.words else line
            if index < 0:
                parts.orphans.append(piece)
            else:
                (parts.islands if island else parts.regions)[index].append(piece)
    return parts


def _target(box: BBox, layout: RasterLayout) -> tuple[bool, int]:
    """(True, i) for island i, (False, i) for text region i, (False, -1) when there is no region."""
    cx, cy = box.cx, box.cy
    for i, island in enumerate(layout.islands):
        x0, y0, x1, y1 = island.box
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            return True, i
    if not layout.regions:
        return False, -1

    def distance(region: tuple[int, int, int, int]) -> float:
        dx = max(region[0] - cx, 0.0, cx - region[2])
        dy = max(region[1] - cy, 0.0, cy - region[3])
        return dx * dx + dy * dy

    return False, min(range(len(layout.regions)), key=lambda i: distance(layout.regions[i]))


def _pixels(box: BBox) -> PixelBox:
    """The pixels a box (pixels, fractional) covers."""
    return math.floor(box.x0), math.floor(box.y0), math.ceil(box.x1), math.ceil(box.y1)


def _union_px(lines: list[Line]) -> tuple[int, int, int, int]:
    return (
        int(min(ln.bbox.x0 for ln in lines)),
        int(min(ln.bbox.y0 for ln in lines)),
        int(max(ln.bbox.x1 for ln in lines)) + 1,
        int(max(ln.bbox.y1 for ln in lines)) + 1,
    )


class _IslandWords:
    """An island's text from the page's one reading: the words that fell in it, whatever it holds."""

    def __init__(self, page: OcrPage, pieces: list[Line]) -> None:
        self.page, self.scale = page, page.scale
        self.lines = [to_points(ln, 0, 0, page.scale) for ln in merge_rows(pieces)]

    def read(self, island: Island, task: IslandTask) -> tuple[list[Line], str | None]:
        return self.lines, None

    def ruled_table(self, island: Island, grid: TableGrid) -> tuple[Block, list[Line]]:
        """Its cells filled with the words that fell in them, those left unsure or empty read again
        (ocr/table_cells.py)."""
        cells = grid_cells_to_points(grid, self.scale)
        words = [w for ln in self.lines for w in ln.words]
        texts = cells_read_again(self.page, grid, cells, words)
        table = Table(grid.n_rows, grid.n_cols, tuple(replace(c, text=t) for c, t in zip(cells, texts, strict=True)))
        table = split_aligned_rows(table, words)
        bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / self.scale)
        return Block("table", bbox, table_text(table), mean_confidence(self.lines), (), table=table), self.lines
