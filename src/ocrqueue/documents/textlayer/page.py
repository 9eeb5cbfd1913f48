"""The text-layer path's stages: a page read from a PDF's own text layer, no rendering, no OCR.

``judge`` decides whether the layer is read (textlayer/judge.py), ``read`` builds the page's
blocks from it (``from_text_layer``); pipeline.py runs them.
"""

from __future__ import annotations

import heapq
from dataclasses import replace

import numpy as np

from ocrqueue.documents.arabic_letters import languages_named
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.input.images import png_bytes
from ocrqueue.documents.input.pages import PageInput, TextLayer
from ocrqueue.documents.input.pdf import PdfPage
from ocrqueue.documents.layout.aligned_columns import aligned_tables
from ocrqueue.documents.layout.blocks import (
    CAPTION,
    MARGIN_BAND,
    body_size,
    build_blocks,
    figure_block,
    holds_running_text,
    reading_sort,
)
from ocrqueue.documents.layout.cells import fill_table, grid_cells_to_points, table_text
from ocrqueue.documents.layout.code import is_listing
from ocrqueue.documents.layout.margins import at_notes, split_margin, with_notes
from ocrqueue.documents.layout.open_tables import band_table, rule_bands
from ocrqueue.documents.layout.row_grid import row_grid_tables
from ocrqueue.documents.layout.rows import across_gutters, split_line
from ocrqueue.documents.layout.stacked_rows import split_stacked_rows
from ocrqueue.documents.layout.tables import find_tables, is_form
from ocrqueue.documents.layout.vertical import is_vertical, stacked_into_columns, vertical_blocks
from ocrqueue.documents.layout.watermarks import split_watermarks, watermark_blocks
from ocrqueue.documents.layout.word_regions import cut_regions
from ocrqueue.documents.model import Block, Line, TableCell, Word, figure_name
from ocrqueue.documents.scripts import languages_for, scripts_in
from ocrqueue.documents.stages import PageContext, needed, stage
from ocrqueue.documents.textlayer.judge import text_layer_problem

RULE_SCALE = 1.0  # mask pixels per point when vector rules are drawn to find tables

# A table found from vector rules: its box, rows, columns and (still empty) cells, all in points.
VectorTable = tuple[BBox, int, int, list[TableCell]]


def _vector_tables(rules: list[BBox], width: float, height: float) -> list[VectorTable]:
    """Tables from vector rules: (bbox in points, rows, columns, empty cells in points). The rules
    are drawn on masks covering only the rules' bounding box, not the page."""
    horizontal = [r for r in rules if r.width >= r.height]
    vertical = [r for r in rules if r.width < r.height]
    if len(horizontal) < 2 or len(vertical) < 2:
        return []
    ox = max(0, int(min(r.x0 for r in rules) * RULE_SCALE) - 1)
    oy = max(0, int(min(r.y0 for r in rules) * RULE_SCALE) - 1)
    right = min(width, max(r.x1 for r in rules)) * RULE_SCALE
    bottom = min(height, max(r.y1 for r in rules)) * RULE_SCALE
    shape = (max(1, int(bottom) + 2 - oy), max(1, int(right) + 2 - ox))
    h_mask = np.zeros(shape, dtype=bool)
    v_mask = np.zeros(shape, dtype=bool)
    for mask, group in ((h_mask, horizontal), (v_mask, vertical)):
        for r in group:
            x0, y0 = max(0, int(r.x0 * RULE_SCALE) - ox), max(0, int(r.y0 * RULE_SCALE) - oy)
            x1, y1 = int(np.ceil(r.x1 * RULE_SCALE)) + 1 - ox, int(np.ceil(r.y1 * RULE_SCALE)) + 1 - oy
            mask[y0:y1, x0:x1] = True
    dx, dy = ox / RULE_SCALE, oy / RULE_SCALE
    out: list[VectorTable] = []
    for grid in find_tables(h_mask, v_mask, tol=2):
        cells = grid_cells_to_points(grid, RULE_SCALE, dx, dy)
        box = BBox(
            grid.x0 / RULE_SCALE + dx, grid.y0 / RULE_SCALE + dy, grid.x1 / RULE_SCALE + dx, grid.y1 / RULE_SCALE + dy
        )
        out.append((box, grid.n_rows, grid.n_cols, cells))
    return out


def _regions(lines: list[Line], tables: list[BBox], width: float, height: float) -> list[BBox]:
    """Column-aware regions of the page in reading order, its tables drawn whole
    (layout/word_regions.cut_regions)."""
    return cut_regions(lines, BBox(0.0, 0.0, width, height), MARGIN_BAND, tables)


ISLAND_MIN_ROWS = 2.0  # a box no taller than this many of a line's heights is on the line's row


def _pieces(line: Line, boxes: list[BBox]) -> list[tuple[int | None, Line]]:
    """``line`` in parts, each with the first of ``boxes`` that holds its centre (None: none
    does). A row written across the page a baseline at a time runs from a column of text into
    a table beside it; taken whole by its centre, the column's words were read as a cell of the
    table. So the line's pieces between gutters (``across_gutters``) go where their own centres
    lie, neighbouring pieces going to the same place staying one part. A box no taller than two
    of the line's rows is part of the row, not a region beside it (an answer sheet's boxed
    letters "A Apia B Accra"): a piece in it goes with the line. A line without a gutter, or whose
    centre lies in such a box, goes whole where its centre lies, as before."""

    def place(box: BBox) -> int | None:
        return next((i for i, b in enumerate(boxes) if b.contains_center_of(box)), None)

    def tall(i: int | None) -> bool:
        return i is not None and boxes[i].height > ISLAND_MIN_ROWS * line.bbox.height

    whole = place(line.bbox)
    parts = across_gutters(line, " ".join)
    if len(parts) == 1 or (whole is not None and not tall(whole)):
        return [(whole, line)]
    out: list[tuple[int | None, list[Word]]] = []
    for piece in parts:
        at = place(piece.bbox)
        at = at if at is None or tall(at) else whole
        if out and out[-1][0] == at:
            out[-1][1].extend(piece.words)
        else:
            out.append((at, list(piece.words)))
    return [(at, split_line(line, words, " ".join)) for at, words in out]


def _split_lines(lines: tuple[Line, ...], regions: list[BBox]) -> list[list[Line]]:
    """Assign each word to the region holding its centre, cutting lines that cross a gutter."""
    per_region: list[list[Line]] = [[] for _ in regions]
    for line in lines:
        current: int | None = None
        words: list[Word] = []
        for word in line.words:
            idx = next((i for i, r in enumerate(regions) if r.contains_center_of(word.bbox)), None)
            if idx != current and words and current is not None:
                per_region[current].append(split_line(line, words, " ".join))
                words = []
            current = idx
            words.append(word)
        if words and current is not None:
            per_region[current].append(split_line(line, words, " ".join))
    return per_region


FIGURE_MIN_SIDE = 36.0  # points: smaller images are icons, bullets or logos
FIGURE_MAX_PAGE_SHARE = 0.9  # an image under the whole page is a background or a scan
FIGURE_CROP_PAD = 2.0  # points around the crop of a figure with labels: their glyphs reach past their boxes


def _figure_boxes(layer: TextLayer, width: float, height: float) -> list[BBox]:
    """Embedded images and vector drawings big enough to be figures; an image or drawing inside
    another figure is part of it."""
    page_area = width * height
    boxes = [
        b
        for b in (*layer.drawing_boxes, *layer.image_boxes)
        if min(b.width, b.height) >= FIGURE_MIN_SIDE and b.area <= FIGURE_MAX_PAGE_SHARE * page_area
    ]
    boxes.sort(key=lambda b: -b.area)
    kept: list[BBox] = []
    for box in boxes:
        if not any(big.contains_center_of(box) for big in kept):
            kept.append(box)
    return kept


FIGURE_LABEL_REACH = 1.5  # line heights: how far outside a figure's drawing its labels may sit
FIGURE_LABEL_MAX_WORDS = 5


def _with_labels(box: BBox, lines: tuple[Line, ...]) -> BBox:
    """A figure's box grown over its labels: short lines (not captions) just outside its drawing,
    beside or above or below it, as tick labels, axis names and a chart's title sit."""
    for _ in range(2):  # a label beyond a label (an axis name beyond the tick labels)
        grown = box
        for line in lines:
            b, reach = line.bbox, FIGURE_LABEL_REACH * line.bbox.height
            if box.contains_center_of(b) or len(line.words) > FIGURE_LABEL_MAX_WORDS or CAPTION.match(line.text):
                continue
            left_or_right = box.x0 - reach <= b.x1 <= box.x0 or box.x1 <= b.x0 <= box.x1 + reach
            above_or_below = box.y0 - reach <= b.y1 <= box.y0 or box.y1 <= b.y0 <= box.y1 + reach
            beside = b.y0 < box.y1 and b.y1 > box.y0 and left_or_right
            over = b.x0 < box.x1 and b.x1 > box.x0 and above_or_below
            if beside or over:
                grown = union([grown, b])
        if grown == box:
            break
        box = grown
    return box


def from_text_layer(
    page: PageInput, layer: TextLayer, find_tables_too: bool, figure_dpi: int
) -> tuple[tuple[Block, ...], dict[str, bytes]]:
    """Blocks from the text layer; ruled tables from vector strokes; embedded images and vector
    drawings as figures (cropped by rendering just their area). Text inside a table belongs to
    it; text inside a figure (axis labels, diagram words) is the figure's lines, not prose. A box
    drawn round text (a "table" of one column, a shaded code listing) is a frame: its text is
    read as blocks of its own, kept together. A page set in vertical columns is read column by
    column, right to left (layout/vertical.py). A watermark is read first and kept out of the
    layout (layout/watermarks.py)."""
    columns = stacked_into_columns(layer.lines)
    if is_vertical(columns):
        return tuple(vertical_blocks(columns)), {}
    width, height = page.width, page.height
    page_body = body_size(layer.lines)
    kept, watermarks = split_watermarks(layer.lines, page_body)
    layer = replace(layer, lines=tuple(kept))
    # A picture behind running text is its background: the text is read, the picture left out.
    drawn = [
        _with_labels(box, layer.lines)
        for box in _figure_boxes(layer, width, height)
        if not holds_running_text([ln for ln in layer.lines if box.contains_center_of(ln.bbox)], page_body)
    ]
    frames = [box for box in drawn if _is_listing(box, layer.lines)]
    figures = [box for box in drawn if box not in frames]
    rulings = page.rulings() if find_tables_too else []
    tables = _vector_tables(rulings, width, height)
    # Rules inside a chart (its frame, ticks, grid) are the chart's, not a table's.
    tables = [t for t in tables if not any(f.contains_center_of(t[0]) for f in figures)]
    # One column of cells is a box round text (a listing shaded line by line), not a table.
    frames += [t[0] for t in tables if t[2] == 1]
    tables = [t for t in tables if t[2] > 1]
    # A form's boxes: each is a frame, its text read as blocks of its own.
    frames += [cell.bbox for t in tables if _is_form(t) for cell in t[3]]
    tables = [t for t in tables if not _is_form(t)]
    open_tables = _open_tables(rulings, layer.lines, [t[0] for t in tables] + figures + frames)
    if find_tables_too:
        taken = [t[0] for t in tables] + figures + frames + [b.bbox for b in open_tables]
        open_tables += row_grid_tables(layer.lines, taken)
    # Smaller islands first: a line in a table inside a frame belongs to the table.
    islands = sorted(
        [("table", t[0]) for t in tables] + [("frame", f) for f in frames] + [("figure", f) for f in figures],
        key=lambda island: island[1].area,
    )
    islands = [("open_table", b.bbox) for b in open_tables] + islands
    flow: list[Line] = []
    island_lines: list[list[Line]] = [[] for _ in islands]
    for line in layer.lines:
        for idx, piece in _pieces(line, [box for _, box in islands]):
            (flow if idx is None else island_lines[idx]).append(piece)
    images: dict[str, bytes] = {}
    by_box = {t[0]: t for t in tables}
    open_by_box = {b.bbox: b for b in open_tables}

    def island_blocks(i: int) -> list[Block]:
        kind, box = islands[i]
        if kind == "open_table":
            return [open_by_box[box]]
        if kind == "table":
            return [_table_block(by_box[box], [w for ln in island_lines[i] for w in ln.words])]
        if kind == "frame":
            return build_blocks(reading_sort(island_lines[i]), height, body)
        name = figure_name(page.index, len(images) + 1)
        box = union([box, *(ln.bbox for ln in island_lines[i])])
        pad = FIGURE_CROP_PAD if island_lines[i] else 0.0
        images[name] = png_bytes(
            page.render_region(BBox(box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad), figure_dpi)
        )
        return [figure_block(box, island_lines[i], name)]

    boxes = [box for _, box in islands]
    (flow,), margin = split_margin([flow])
    regions = _regions(flow, boxes, width, height)
    body = body_size(flow)
    blocks: list[Block] = []
    placed: set[int] = set()
    per_region = _split_lines(tuple(flow), regions)
    # Regions side by side whose lines pair up row by row: a table without rules, read as one.
    unruled = aligned_tables(regions, per_region) if find_tables_too else {}
    in_tables = {k: first for first, (_, run) in unruled.items() for k in run}
    for k, (region, lines) in enumerate(zip(regions, per_region, strict=True)):
        # One column, top to bottom; the blocks of one island stay together, in their own order.
        if k in in_tables:
            table = unruled[k][0] if k in unruled else None
            groups = [(table.bbox.y0, [table])] if table is not None else []
        else:
            chunks = at_notes(reading_sort(lines), margin)
            groups = [(b.bbox.y0, [b]) for chunk in chunks for b in build_blocks(chunk, height, body)]
        # Top down (figures are named so), left to right along a row (a form's boxes).
        beside: list[tuple[float, list[Block]]] = []
        for i, box in sorted(enumerate(boxes), key=lambda item: (item[1].y0, item[1].x0)):
            if i not in placed and region.contains_center_of(box):
                placed.add(i)
                beside.append((box.y0, island_blocks(i)))
        # The islands go in among the text blocks by their tops; the text blocks keep their
        # reading order. Sorted all together, a form's label "D" on the first row of its
        # paragraph fell after it, its top a hundredth of a point lower.
        merged = heapq.merge(groups, beside, key=lambda g: g[0])
        blocks.extend(b for _, group in merged for b in group)
    blocks.extend(b for i in range(len(islands)) if i not in placed for b in island_blocks(i))
    blocks = with_notes(blocks, build_blocks(reading_sort(margin), height, body))
    return (*watermark_blocks(watermarks), *blocks), images


def _is_form(table: VectorTable) -> bool:
    """A ruled grid that is a form's boxes, not a table (layout/tables.is_form). Read as one
    table, an application form's page was one block of 153 cells."""
    _, n_rows, n_cols, cells = table
    return is_form(n_rows, n_cols, len(cells))


LISTING_MIN_LINES = 3


def _is_listing(box: BBox, lines: tuple[Line, ...]) -> bool:
    """A drawing behind lines that are mostly monospaced is a shaded code listing, not a chart."""
    inside = [ln for ln in lines if box.contains_center_of(ln.bbox)]
    return len(inside) >= LISTING_MIN_LINES and is_listing(inside)


def _open_tables(rulings: list[BBox], lines: tuple[Line, ...], taken: list[BBox]) -> list[Block]:
    """Tables ruled only across (booktabs), built from the lines whose centres lie in their band."""
    blocks: list[Block] = []
    for band in rule_bands(rulings, lines, taken):
        inside = [piece for line in lines for at, piece in _pieces(line, [band.box]) if at == 0]
        table = band_table(band, inside)
        if table is not None:
            blocks.append(Block("table", band.box, table_text(table), 1.0, (), table=table))
    return blocks


def _table_block(table: VectorTable, words: list[Word]) -> Block:
    box, n_rows, n_cols, cells = table
    filled = split_stacked_rows(fill_table(n_rows, n_cols, cells, words), words)
    return Block("table", box, table_text(filled), 1.0, (), table=filled)


@stage("textlayer.judge")
def judge(context: PageContext) -> None:
    """Reads the text layer and options.mode; adds the layer, its turn and the path: text layer, OCR or nothing."""
    options = context.options
    layer = context.page.text_layer(options.char_boxes)
    turn = layer.turn if layer is not None and isinstance(context.page, PdfPage) else 0
    if isinstance(context.page, PdfPage) and turn:
        layer = context.page.turned(turn).text_layer(options.char_boxes)
    problem = text_layer_problem(layer)
    context.layer = layer
    if layer is not None and (problem is None or options.mode == "text"):
        if problem is not None:
            context.warn(f"text layer used as requested although {problem}")
        if turn:
            context.warn(f"turned {turn} degrees clockwise to read its text upright")
        context.path, context.rotation = "text_layer", turn
    elif options.mode == "text":
        context.warn(f"{problem}; nothing extracted because mode is 'text'")
        context.path = "nothing"
    else:
        if layer is not None and problem is not None:
            context.warn(f"OCR used: {problem}")
        context.path = "ocr"


@stage("textlayer.read")
def read(context: PageContext) -> None:
    """Reads the layer and options.tables; adds blocks, figure crops, and the scripts and languages of its text."""
    layer = needed(context.layer, "text layer")
    options = context.options
    page = context.page.turned(context.rotation) if isinstance(context.page, PdfPage) else context.page
    context.blocks, context.images = from_text_layer(page, layer, options.tables, options.dpi)
    text = "".join(line.text for line in layer.lines)
    context.scripts = scripts_in(text)
    context.languages = languages_named(languages_for(context.scripts), text)
