"""Region by region: each layout region is cropped and sent to the engine on its own, with the
task it holds (text, table, formula). For engines that read regions best in isolation and are
told what they hold, such as vision models with GLM-OCR's task prompts (``reads_regions``)."""

from __future__ import annotations

import numpy as np
from PIL import Image

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.cells import grid_cells_to_points, table_text
from ocrqueue.documents.layout.detector import get_layout_model
from ocrqueue.documents.layout.markup_table import MarkupCell, parse_markup_table
from ocrqueue.documents.layout.raster import Island, analyse
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Block, Line, Table, TableCell
from ocrqueue.documents.ocr.assemble import (
    Box,
    Figures,
    OcrPage,
    in_reading_order,
    islands_wanted,
    mean_confidence,
    region_blocks,
    to_points,
    whitespace_table,
)
from ocrqueue.documents.text import join_words

PAD = 12  # white border (pixels) around region crops: engines read text touching the edge badly


def read_regions(page: OcrPage, use_model: bool) -> tuple[list[Block], Figures]:
    model = get_layout_model() if use_model else None
    detected = model.detect(page.straight.gray) if model is not None else None
    layout = analyse(page.straight, page.rules, page.dpi, islands_wanted(detected or []))
    rules = page.rules.mask if page.rules is not None else np.zeros_like(page.ink)
    island_boxes = [i.box for i in layout.islands]
    region_lines: list[list[Line]] = []
    for box in layout.regions:
        crop, dx, dy = _crop(page.image, box, [b for b in island_boxes if _overlaps(b, box)])
        out = page.engine.recognize(crop, _request(page, "text"))
        region_lines.append([to_points(ln, dx, dy, page.scale) for ln in out.lines])
    figures = Figures(page)
    per_region, notes = region_blocks(page, layout, region_lines, detected, figures)
    island_blocks = [_island_blocks(page, isl, rules, figures) for isl in layout.islands]
    return in_reading_order(layout, per_region, island_blocks, notes), figures


def _request(page: OcrPage, task: str) -> RecognitionRequest:
    return RecognitionRequest(page.languages, task, page.dpi)  # type: ignore[arg-type]


def _crop(image: Image.Image, box: Box, blank: list[Box]) -> tuple[Image.Image, int, int]:
    """Crop ``box`` plus a white pad; areas in ``blank`` (tables, rules) are painted white."""
    x0, y0 = max(0, box[0] - PAD), max(0, box[1] - PAD)
    x1, y1 = min(image.width, box[2] + PAD), min(image.height, box[3] + PAD)
    crop = image.crop((x0, y0, x1, y1))
    for b in blank:
        crop.paste((255, 255, 255), (b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0))
    return crop, x0, y0


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _island_blocks(page: OcrPage, island: Island, rules: Mask, figures: Figures) -> list[Block]:
    if island.kind == "figure":
        crop, dx, dy = _crop(page.image, island.box, [])
        labels = page.engine.recognize(crop, _request(page, "text")).lines  # axis labels, diagram words
        return [figures.add(island.box, [to_points(ln, dx, dy, page.scale) for ln in labels])]
    if island.kind == "table" and island.grid is None:
        crop, dx, dy = _crop(page.image, island.box, [])
        pixels = np.array(crop)
        pixels[rules[dy : dy + crop.height, dx : dx + crop.width]] = 255
        out = page.engine.recognize(Image.fromarray(pixels), _request(page, "table"))
        lines = [to_points(ln, dx, dy, page.scale) for ln in out.lines]
        return whitespace_table(lines, BBox(*island.box).scaled(1 / page.scale))
    if island.kind == "formula" or island.grid is None:
        crop, dx, dy = _crop(page.image, island.box, [])
        out = page.engine.recognize(crop, _request(page, "formula"))
        formula = tuple(to_points(ln, dx, dy, page.scale) for ln in out.lines)
        text = join_words([ln.text for ln in formula])
        bbox = BBox(*island.box).scaled(1 / page.scale)
        return [Block("formula", bbox, text, mean_confidence(formula), formula, latex=out.markup)]
    block = _table_block(page, island.grid, rules)
    if block.table is not None and not any(c.text for c in block.table.cells):
        return [figures.add(island.box)]  # a grid of lines with no text in it is a drawing, not a table
    return [block]


def _model_table(page: OcrPage, grid: TableGrid) -> Block | None:
    """A whole ruled table sent once with task "table" to an engine that answers with markup (a
    vision model, as GLM-OCR does); None when the answer holds no table, so cells are read instead.
    Cells get the detected grid's boxes when the shapes agree, else an even split of the table."""
    crop, dx, dy = _crop(page.image, (grid.x0, grid.y0, grid.x1, grid.y1), [])
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
        crop, dx, dy = _crop(page.image, box, [])
        pixels = np.array(crop)
        pixels[rules[dy : dy + crop.height, dx : dx + crop.width]] = 255
        inner = pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx].copy()
        pixels[:] = 255
        pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx] = inner
        out = page.engine.recognize(Image.fromarray(pixels), _request(page, "cell"))
        lines = [to_points(ln, dx, dy, page.scale) for ln in out.lines]
        lines_seen.extend(lines)
        text = join_words([ln.text for ln in lines])
        cells.append(TableCell(empty.row, empty.col, text, empty.bbox, empty.row_span, empty.col_span))
    table = Table(grid.n_rows, grid.n_cols, tuple(cells))
    bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / page.scale)
    return Block("table", bbox, table_text(table), mean_confidence(lines_seen), (), table=table)
