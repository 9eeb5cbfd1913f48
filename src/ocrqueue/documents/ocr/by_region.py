"""Region by region: each layout region is cropped and sent to the engine on its own, with the
task it holds (text, table, formula). For engines that read regions best in isolation and are
told what they hold, such as vision models with GLM-OCR's task prompts (``reads_regions``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.geometry import BBox, PixelBox
from ocrqueue.documents.layout.blocks import body_size
from ocrqueue.documents.layout.cells import grid_cells_to_points, table_text
from ocrqueue.documents.layout.leaders import (
    Leader,
    find_leaders,
    mark_leaders,
    mark_leaders_in_groups,
    painted_out,
)
from ocrqueue.documents.layout.markup_table import MarkupCell, parse_markup_table
from ocrqueue.documents.layout.raster import Island, analyse
from ocrqueue.documents.layout.stacked_rows import split_aligned_rows
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Block, Line, Table, TableCell
from ocrqueue.documents.ocr.assemble import (
    Box,
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
from ocrqueue.documents.ocr.crops import PAD_PX, padded_crop
from ocrqueue.documents.resources import PipelineResources
from ocrqueue.documents.text import join_words


def read_regions(page: OcrPage, use_model: bool, resources: PipelineResources) -> tuple[list[Block], Figures]:
    """Each region read from a crop of it with the page's dot leaders painted out (RapidOCR reads
    their dots as full stops, and the layout, seeing too little ink in them, puts the page
    numbers in regions of their own, read after the entries); each leader is put back as one word
    between its entry and its page number, in one line in the entry's region (layout/leaders.py)."""
    model = resources.layout_model() if use_model else None
    detected = model.detect(page.straight.gray) if model is not None else None
    layout = analyse(page.straight, page.rules, page.dpi, islands_wanted(detected or []))
    rules = page.rules.mask if page.rules is not None else np.zeros_like(page.ink)
    island_boxes = [i.box for i in layout.islands]
    leaders = find_leaders(page.ink, page.dpi)
    dots = painted_out(leaders, page.dpi)
    read: list[list[Line]] = []
    for box in layout.regions:
        blank = [b for b in island_boxes if _overlaps(b, box)] + _near(dots, box)
        crop, dx, dy = padded_crop(page.image, box, blank)
        out = page.engine.recognize(crop, _request(page, "text"))
        read.append([moved(ln, dx, dy) for ln in out.lines])
    region_lines = [[to_points(ln, 0, 0, page.scale) for ln in lines] for lines in _with_leaders(page, read, leaders)]
    figures = Figures(page)
    per_region, notes = region_blocks(page, layout, region_lines, detected, figures)
    body = body_size(ln for lines in region_lines for ln in lines)
    per_island = [island_blocks(page, isl, figures, _IslandCrops(page, rules, leaders), body) for isl in layout.islands]
    return in_reading_order(layout, per_region, per_island, notes), figures


def _with_leaders(page: OcrPage, read: list[list[Line]], leaders: list[Leader]) -> list[list[Line]]:
    """The lines of each region (page pixels) with the leaders put in (``mark_leaders_in_groups``)
    and the page numbers the regions' readings left out after them (``numbers_after_leaders``)."""
    if not leaders:
        return read
    groups = mark_leaders_in_groups(read, leaders, page.dpi)
    lines = iter(numbers_after_leaders(page, tuple(ln for group in groups for ln in group)))
    return [[next(lines) for _ in group] for group in groups]


def _near(dots: list[PixelBox], box: PixelBox) -> list[PixelBox]:
    """The leaders' boxes (``painted_out``) in the crop of ``box`` with its padding."""
    wide = (box[0] - PAD_PX, box[1] - PAD_PX, box[2] + PAD_PX, box[3] + PAD_PX)
    return [b for b in dots if _overlaps(b, wide)]


def _request(page: OcrPage, task: str) -> RecognitionRequest:
    return RecognitionRequest(page.languages, task, page.dpi)  # type: ignore[arg-type]


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _IslandCrops:
    """An island's text read from a crop of it on its own, with the task it holds."""

    def __init__(self, page: OcrPage, rules: Mask, leaders: list[Leader]) -> None:
        self.page, self.rules, self.leaders = page, rules, leaders
        self.dots = painted_out(leaders, page.dpi)

    def read(self, island: Island, task: IslandTask) -> tuple[list[Line], str | None]:
        """Its lines, with its dot leaders painted out of the crop and put back as on the regions
        (the layout model took a Chinese contents page for a table without rules)."""
        crop, dx, dy = padded_crop(self.page.image, island.box, _near(self.dots, island.box))
        if task == "table":
            crop = Image.fromarray(_rules_painted_out(crop, dx, dy, self.rules))
        out = self.page.engine.recognize(crop, _request(self.page, task))
        lines = [moved(ln, dx, dy) for ln in out.lines]
        if self.leaders:
            lines = list(numbers_after_leaders(self.page, mark_leaders(lines, self.leaders, self.page.dpi)))
        return [to_points(ln, 0, 0, self.page.scale) for ln in lines], out.markup

    def ruled_table(self, island: Island, grid: TableGrid) -> tuple[Block, list[Line]]:
        return _table_block(self.page, grid, self.rules), []


def _rules_painted_out(crop: Image.Image, dx: int, dy: int, rules: Mask) -> npt.NDArray[np.uint8]:
    """The pixels of a crop at (dx, dy) with the page's rules in it painted white."""
    pixels = np.array(crop)
    pixels[rules[dy : dy + crop.height, dx : dx + crop.width]] = 255
    return pixels


def _model_table(page: OcrPage, grid: TableGrid) -> Block | None:
    """A whole ruled table sent once with task "table" to an engine that answers with markup (a
    vision model, as GLM-OCR does); None when the answer holds no table, so cells are read instead.
    Cells get the detected grid's boxes when the shapes agree, else an even split of the table."""
    crop, dx, dy = padded_crop(page.image, (grid.x0, grid.y0, grid.x1, grid.y1))
    out = page.engine.recognize(crop, _request(page, "table"))
    parsed = parse_markup_table(out.markup or "")
    if parsed is None:
        return None
    bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / page.scale)
    detected = {(c.row, c.col): c.bbox for c in grid_cells_to_points(grid, page.scale)}
    same_shape = (parsed.n_rows, parsed.n_cols) == (grid.n_rows, grid.n_cols)
    row_h, col_w = bbox.height / parsed.n_rows, bbox.width / parsed.n_cols

    def box(cell: MarkupCell) -> BBox:
        if same_shape and (cell.row, cell.col) in detected:
            first = detected[(cell.row, cell.col)]
            last = detected.get((cell.row + cell.row_span - 1, cell.col + cell.col_span - 1), first)
            return BBox(first.x0, first.y0, max(first.x1, last.x1), max(first.y1, last.y1))
        x0, y0 = bbox.x0 + cell.col * col_w, bbox.y0 + cell.row * row_h
        return BBox(x0, y0, x0 + cell.col_span * col_w, y0 + cell.row_span * row_h)

    cells = tuple(TableCell(c.row, c.col, c.text, box(c), c.row_span, c.col_span) for c in parsed.cells)
    table = Table(parsed.n_rows, parsed.n_cols, cells)
    lines = [to_points(ln, dx, dy, page.scale) for ln in out.lines]
    return Block("table", bbox, table_text(table), mean_confidence(lines), (), table=table)


def _table_block(page: OcrPage, grid: TableGrid, rules: Mask) -> Block:
    """Recognise each cell on its own, inset from its rules (which are painted out as well); an
    engine that reads whole tables (`reads_whole_tables`) gets the table in one request instead."""
    if page.engine.capabilities.reads_whole_tables:
        whole = _model_table(page, grid)
        if whole is not None:
            return whole
    inset = max(2, page.dpi // 50)
    lines_seen: list[Line] = []
    cells = []
    for cell, empty in zip(grid.cells, grid_cells_to_points(grid, page.scale), strict=True):
        box = (cell.x0 + inset, cell.y0 + inset, cell.x1 - inset, cell.y1 - inset)
        if box[2] - box[0] < 4 or box[3] - box[1] < 4:
            cells.append(empty)
            continue
        crop, dx, dy = padded_crop(page.image, box)
        pixels = _rules_painted_out(crop, dx, dy, rules)
        inner = pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx].copy()
        pixels[:] = 255
        pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx] = inner
        out = page.engine.recognize(Image.fromarray(pixels), _request(page, "cell"))
        lines = [to_points(ln, dx, dy, page.scale) for ln in out.lines]
        lines_seen.extend(lines)
        text = join_words([ln.text for ln in lines])
        cells.append(TableCell(empty.row, empty.col, text, empty.bbox, empty.row_span, empty.col_span))
    words = [w for ln in lines_seen for w in ln.words]
    table = split_aligned_rows(Table(grid.n_rows, grid.n_cols, tuple(cells)), words)
    bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / page.scale)
    return Block("table", bbox, table_text(table), mean_confidence(lines_seen), (), table=table)
