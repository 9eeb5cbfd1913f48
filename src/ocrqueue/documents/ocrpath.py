"""Build a page result by rendering the page and recognising it with an OCR engine.

The page is straightened, split into column regions and ruled tables (layout/raster.py), and each
region is recognised on its own, so engines never see two columns at once. Boxes are converted
from pixels back to points so both paths share one coordinate frame.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PIL import Image

from ocrqueue.documents.engines import OcrEngine, RecognitionRequest
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.images import png_bytes
from ocrqueue.documents.layout.blocks import body_size, build_blocks
from ocrqueue.documents.layout.cells import column_bounds, grid_cells_to_points, table_text
from ocrqueue.documents.layout.markup_table import MarkupCell, parse_markup_table
from ocrqueue.documents.layout.model import get_layout_model
from ocrqueue.documents.layout.raster import Island, IslandKind, analyse, deskew
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Block, Line, PageResult, Table, TableCell, Word
from ocrqueue.documents.pages import PageInput
from ocrqueue.documents.text import join_words

PAD = 12  # white border (pixels) around region crops: engines read text touching the edge badly
FIGURE_MIN_IN = 1.0  # a region at least this tall and wide with (almost) no text is a figure
FIGURE_MAX_TEXT_SHARE = 0.15
MIN_COLUMN_GAP_IN = 0.15  # whitespace between columns of a table without vertical rules


def _to_points(line: Line, dx: float, dy: float, scale: float) -> Line:
    def conv(b: BBox) -> BBox:
        return BBox((b.x0 + dx) / scale, (b.y0 + dy) / scale, (b.x1 + dx) / scale, (b.y1 + dy) / scale)

    words = tuple(Word(w.text, conv(w.bbox), w.confidence) for w in line.words)
    size = line.font_size / scale if line.font_size else None
    return Line(line.text, conv(line.bbox), line.confidence, words, size)


def _crop(
    image: Image.Image, box: tuple[int, int, int, int], blank: list[tuple[int, int, int, int]]
) -> tuple[Image.Image, int, int]:
    """Crop ``box`` plus a white pad; areas in ``blank`` (tables, rules) are painted white."""
    x0, y0 = max(0, box[0] - PAD), max(0, box[1] - PAD)
    x1, y1 = min(image.width, box[2] + PAD), min(image.height, box[3] + PAD)
    crop = image.crop((x0, y0, x1, y1))
    for b in blank:
        crop.paste((255, 255, 255), (b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0))
    return crop, x0, y0


def _text_share(lines: list[Line], box: BBox) -> float:
    """Share of the region covered by confidently recognised lines."""
    return sum(ln.bbox.area for ln in lines if (ln.confidence or 0) >= 0.5) / max(1.0, box.area)


def from_ocr(
    page: PageInput,
    engine: OcrEngine,
    languages: tuple[str, ...],
    dpi: int,
    tables: bool,
    use_model: bool,
    warnings: list[str],
) -> PageResult:
    raster = page.render(dpi)
    if raster.lowered_from is not None:
        warnings.append(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    image, angle = deskew(raster.image, raster.dpi)
    if angle:
        warnings.append(f"straightened by {angle:.2f} degrees")
    model = get_layout_model() if use_model else None
    detected = [(b.label, b.box) for b in model.detect(image)] if model is not None else []
    islands_wanted: list[tuple[IslandKind, tuple[int, int, int, int]]] = [
        (label, box) for label, box in detected if label in ("figure", "formula", "table")
    ]
    layout = analyse(image, raster.dpi, find_table_grids=tables, detected=islands_wanted)
    request = RecognitionRequest(languages, "text", raster.dpi)
    scale = raster.scale
    island_boxes = [i.box for i in layout.islands]

    region_lines: list[list[Line]] = []
    for box in layout.regions:
        crop, dx, dy = _crop(image, box, [b for b in island_boxes if _overlaps(b, box)])
        out = engine.recognize(crop, request)
        region_lines.append([_to_points(ln, dx, dy, scale) for ln in out.lines])

    body = body_size(ln for lines in region_lines for ln in lines)
    figures = _Figures(page.index, image, scale)
    captions = [box for label, box in detected if label == "caption"]
    per_region: list[list[Block]] = []
    for box, lines in zip(layout.regions, region_lines, strict=True):
        bbox = BBox(*box).scaled(1 / scale)
        big = min(bbox.width, bbox.height) >= FIGURE_MIN_IN * 72
        if model is None and big and len(lines) < 3 and _text_share(lines, bbox) < FIGURE_MAX_TEXT_SHARE:
            per_region.append([figures.add(box)])
        else:
            per_region.append([_relabel(b, captions, scale) for b in build_blocks(lines, page.height, body)])

    island_blocks = [_island_block(image, isl, layout.rules, engine, request, scale, figures) for isl in layout.islands]
    blocks: list[Block] = []
    for i, region_blocks in enumerate(per_region):
        blocks.extend(b for b, after in zip(island_blocks, layout.island_after, strict=True) if after == i)
        blocks.extend(region_blocks)
    blocks.extend(b for b, after in zip(island_blocks, layout.island_after, strict=True) if after >= len(per_region))
    return PageResult(
        page.index, page.width, page.height, engine.name, tuple(blocks), raster.dpi, tuple(warnings), figures.images
    )


class _Figures:
    """Crops figure areas into PNG images named page<N>-figure<K>.png."""

    def __init__(self, index: int, image: Image.Image, scale: float) -> None:
        self.index, self.image, self.scale = index, image, scale
        self.images: dict[str, bytes] = {}

    def add(self, box: tuple[int, int, int, int]) -> Block:
        name = f"page{self.index + 1}-figure{len(self.images) + 1}.png"
        self.images[name] = png_bytes(self.image.crop(box))
        return Block("figure", BBox(*box).scaled(1 / self.scale), "", None, (), image=name)


def _relabel(block: Block, captions: list[tuple[int, int, int, int]], scale: float) -> Block:
    """Text the layout model marks as a figure or table caption becomes a caption block."""
    if block.type != "text":
        return block
    px = block.bbox.scaled(scale)
    if any(b[0] <= px.cx <= b[2] and b[1] <= px.cy <= b[3] for b in captions):
        return replace(block, type="caption")
    return block


def _island_block(
    image: Image.Image,
    island: Island,
    rules: Mask,
    engine: OcrEngine,
    request: RecognitionRequest,
    scale: float,
    figures: _Figures,
) -> Block:
    if island.kind == "figure":
        return figures.add(island.box)
    if island.kind == "table" and island.grid is None:
        return _whitespace_table(image, island.box, rules, engine, request, scale)
    if island.kind == "formula" or island.grid is None:
        crop, dx, dy = _crop(image, island.box, [])
        out = engine.recognize(crop, RecognitionRequest(request.languages, "formula", request.dpi))
        lines = tuple(_to_points(ln, dx, dy, scale) for ln in out.lines)
        text = join_words([ln.text for ln in lines])
        return Block(
            "formula", BBox(*island.box).scaled(1 / scale), text, _mean_confidence(list(lines)), lines, latex=out.markup
        )
    block = _table_block(image, island.grid, rules, engine, request, scale)
    if block.table is not None and not any(c.text for c in block.table.cells):
        return figures.add(island.box)  # a grid of lines with no text in it is a drawing, not a table
    return block


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _model_table(
    image: Image.Image, grid: TableGrid, engine: OcrEngine, request: RecognitionRequest, scale: float
) -> Block | None:
    """A whole ruled table sent once with task "table" to an engine that answers with markup (a
    vision model, as GLM-OCR does); None when the answer holds no table, so cells are read instead.
    Cells get the detected grid's boxes when the shapes agree, else an even split of the table."""
    crop, dx, dy = _crop(image, (grid.x0, grid.y0, grid.x1, grid.y1), [])
    out = engine.recognize(crop, RecognitionRequest(request.languages, "table", request.dpi))
    parsed = parse_markup_table(out.markup or "")
    if parsed is None:
        return None
    bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / scale)
    detected = {(c.row, c.col): c.bbox for c in grid_cells_to_points(grid, scale)}
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
    lines = tuple(_to_points(ln, dx, dy, scale) for ln in out.lines)
    return Block("table", bbox, table_text(table), _mean_confidence(list(lines)), (), table=table)


def _table_block(
    image: Image.Image, grid: TableGrid, rules: Mask, engine: OcrEngine, request: RecognitionRequest, scale: float
) -> Block:
    """Recognise each cell on its own, inset from its rules (which are painted out as well); an
    engine that reads whole tables (`reads_whole_tables`) gets the table in one request instead."""
    if getattr(engine, "reads_whole_tables", False):
        whole = _model_table(image, grid, engine, request, scale)
        if whole is not None:
            return whole
    inset = max(2, request.dpi // 50)
    cell_request = RecognitionRequest(request.languages, "cell", request.dpi)
    lines_seen: list[Line] = []
    cells = []
    for cell, empty in zip(grid.cells, grid_cells_to_points(grid, scale), strict=True):
        box = (cell.x0 + inset, cell.y0 + inset, cell.x1 - inset, cell.y1 - inset)
        if box[2] - box[0] < 4 or box[3] - box[1] < 4:
            cells.append(empty)
            continue
        crop, dx, dy = _crop(image, box, [])
        pixels = np.array(crop)
        pixels[rules[dy : dy + crop.height, dx : dx + crop.width]] = 255
        inner = pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx].copy()
        pixels[:] = 255
        pixels[box[1] - dy : box[3] - dy, box[0] - dx : box[2] - dx] = inner
        out = engine.recognize(Image.fromarray(pixels), cell_request)
        lines = [_to_points(ln, dx, dy, scale) for ln in out.lines]
        lines_seen.extend(lines)
        cells.append(
            TableCell(
                empty.row, empty.col, join_words([ln.text for ln in lines]), empty.bbox, empty.row_span, empty.col_span
            )
        )
    table = Table(grid.n_rows, grid.n_cols, tuple(cells))
    bbox = BBox(grid.x0, grid.y0, grid.x1, grid.y1).scaled(1 / scale)
    return Block("table", bbox, table_text(table), _mean_confidence(lines_seen), (), table=table)


def _whitespace_table(
    image: Image.Image,
    box: tuple[int, int, int, int],
    rules: Mask,
    engine: OcrEngine,
    request: RecognitionRequest,
    scale: float,
) -> Block:
    """A table without vertical rules: rows are the recognised lines, columns the gaps that no
    word crosses. With fewer than two columns it is read as a text block."""
    crop, dx, dy = _crop(image, box, [])
    pixels = np.array(crop)
    pixels[rules[dy : dy + crop.height, dx : dx + crop.width]] = 255
    out = engine.recognize(Image.fromarray(pixels), RecognitionRequest(request.languages, "table", request.dpi))
    lines = [_to_points(ln, dx, dy, scale) for ln in out.lines if ln.words]
    bbox = BBox(*box).scaled(1 / scale)
    columns = column_bounds([w.bbox for ln in lines for w in ln.words], min_gap=MIN_COLUMN_GAP_IN * 72)
    if len(columns) < 2 or len(lines) < 2:
        text = join_words([ln.text for ln in lines])
        return Block("text", bbox, text, _mean_confidence(lines), tuple(lines))
    cells = []
    for r, line in enumerate(sorted(lines, key=lambda ln: ln.bbox.y0)):
        for c, (x0, x1) in enumerate(columns):
            words = [w for w in line.words if x0 <= w.bbox.cx <= x1]
            cells.append(TableCell(r, c, join_words([w.text for w in words]), BBox(x0, line.bbox.y0, x1, line.bbox.y1)))
    table = Table(len(lines), len(columns), tuple(cells))
    return Block("table", bbox, table_text(table), _mean_confidence(lines), (), table=table)


def _mean_confidence(lines: list[Line]) -> float | None:
    known = [ln.confidence for ln in lines if ln.confidence is not None]
    return sum(known) / len(known) if known else None
