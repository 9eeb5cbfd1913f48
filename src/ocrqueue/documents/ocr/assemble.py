"""What both OCR strategies share: the page being read, pixel-to-point conversion, figure crops,
text blocks per region, the blocks of an island, whitespace tables and the final reading order of
regions and islands."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from PIL import Image

from ocrqueue.documents.engines import OcrEngine, RecognitionRequest
from ocrqueue.documents.geometry import BBox, PixelBox, union
from ocrqueue.documents.input.images import png_bytes
from ocrqueue.documents.layout.aligned_columns import aligned_tables, cells_like
from ocrqueue.documents.layout.blocks import body_size, build_blocks, figure_block, holds_running_text, reading_sort
from ocrqueue.documents.layout.cells import MIN_COLUMN_GAP_PT, column_bounds, grid_cells_to_points, table_text
from ocrqueue.documents.layout.code import code_text, is_source_beside_output, mark_monospace
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.layout.leaders import is_contents, unread_after_leaders, words_of
from ocrqueue.documents.layout.margins import at_notes, split_margin, with_notes
from ocrqueue.documents.layout.raster import MIN_FIGURE_INK, Island, IslandKind, RasterLayout, Rules
from ocrqueue.documents.layout.rows import split_line, with_words
from ocrqueue.documents.layout.straighten import GRID_DPI, Straightened
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.word_regions import word_regions
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Block, Line, Table, TableCell, Word, figure_name
from ocrqueue.documents.ocr.bold_lines import with_bold_marked
from ocrqueue.documents.text import clean_text, join_words

FIGURE_MIN_IN = 1.0  # a region at least this tall and wide with (almost) no text is a figure
FIGURE_MAX_TEXT_SHARE = 0.15
ISLAND_LABELS: tuple[IslandKind, ...] = ("figure", "formula", "table")

Box = PixelBox


@dataclass(frozen=True)
class OcrPage:
    """A rendered, straightened page and what is known about it before recognition."""

    index: int
    height: float  # points
    straight: Straightened
    rules: Rules | None  # None: tables are not looked for
    dpi: int
    scale: float  # pixels per point
    engine: OcrEngine
    languages: tuple[str, ...]

    @property
    def image(self) -> Image.Image:
        """The straightened page in grey: what the layout model and region crops see; a whole-page
        engine reads its content box (ocrpage.py)."""
        return self.straight.image

    @property
    def ink(self) -> Mask:
        return self.straight.ink


def islands_wanted(detected: Sequence[LayoutBox]) -> list[tuple[IslandKind, Box]]:
    return [(b.label, b.box) for b in detected if b.label in ISLAND_LABELS]


def to_points(line: Line, dx: float, dy: float, scale: float) -> Line:
    """A line from pixels of a crop at (dx, dy) to page points, its text cleaned of anything
    invisible an engine may give (control and format characters)."""

    def conv(b: BBox) -> BBox:
        return BBox((b.x0 + dx) / scale, (b.y0 + dy) / scale, (b.x1 + dx) / scale, (b.y1 + dy) / scale)

    words = tuple(Word(clean_text(w.text), conv(w.bbox), w.confidence, role=w.role) for w in line.words)
    size = line.font_size / scale if line.font_size else None
    return Line(clean_text(line.text), conv(line.bbox), line.confidence, words, size)


def moved(line: Line, dx: float, dy: float) -> Line:
    """A line from pixels of a crop at (dx, dy) to the page's pixels."""
    return to_points(line, dx, dy, 1.0)


def mean_confidence(lines: Sequence[Line]) -> float | None:
    known = [ln.confidence for ln in lines if ln.confidence is not None]
    return sum(known) / len(known) if known else None


class Figures:
    """Crops figure areas into PNG images named by ``figure_name``."""

    def __init__(self, page: OcrPage) -> None:
        self.index, self.straight, self.scale = page.index, page.straight, page.scale
        self.images: dict[str, bytes] = {}

    def add(self, box: Box, lines: Sequence[Line] = ()) -> Block:
        """A figure block for ``box`` (pixels) with the text read inside it (``lines`` in points:
        axis labels, words of a diagram) as its lines."""
        name = figure_name(self.index, len(self.images) + 1)
        self.images[name] = png_bytes(self.straight.color().crop(box))
        return figure_block(BBox(*box).scaled(1 / self.scale), lines, name)


def _relabel(block: Block, captions: list[Box], scale: float) -> Block:
    """Text the layout model marks as a figure or table caption becomes a caption block."""
    if block.type != "text":
        return block
    px = block.bbox.scaled(scale)
    if any(b[0] <= px.cx <= b[2] and b[1] <= px.cy <= b[3] for b in captions):
        return replace(block, type="caption")
    return block


def _not_title(block: Block) -> Block:
    """A block in a form's box is a field's label or its instructions, never a title: a label of
    a word or two in capitals ("LAST", "AIR FORCE:") read on its own is as tall as a title against
    the page's body (DD Form 293's first page: 21 such titles, where its tags have no heading)."""
    return replace(block, type="text", level=None) if block.type == "title" else block


def _text_share(lines: list[Line], box: BBox) -> float:
    """Share of the region covered by confidently recognised lines."""
    return sum(ln.bbox.area for ln in lines if (ln.confidence or 0) >= 0.5) / max(1.0, box.area)


def _drawing_share(page: OcrPage, box: Box, lines: Sequence[Line]) -> float:
    """Share of the grid cells of a region (``box``, pixels) holding ink outside its recognised
    lines (points): a picture's or a drawing's. A figure is ink that is not text: a table's
    caption and the page number an inch below it made a region with two lines and hardly any
    text by area, taken for a figure that held them (dev amc-latex-guide p. 93)."""
    factor = max(1, round(page.dpi / GRID_DPI))
    x0, y0, x1, y1 = box[0] // factor, box[1] // factor, -(-box[2] // factor), -(-box[3] // factor)
    cells = page.straight.grid[y0:y1, x0:x1].copy()
    for line in lines:
        b = line.bbox.scaled(page.scale)
        top, left = max(0, int(b.y0) // factor - y0), max(0, int(b.x0) // factor - x0)
        cells[top : max(top, math.ceil(b.y1 / factor) - y0), left : max(left, math.ceil(b.x1 / factor) - x0)] = False
    return float(cells.mean()) if cells.size else 0.0


def region_blocks(
    page: OcrPage,
    layout: RasterLayout,
    region_lines: list[list[Line]],
    detected: Sequence[LayoutBox] | None,
    figures: Figures,
) -> tuple[list[list[Block]], list[Block]]:
    """Blocks of each text region (lines in points), and the page's margin notes as blocks of
    their own (layout/margins.py; ``in_reading_order`` places them). Without a layout model
    (``detected`` None), a big region with hardly any text is taken for a figure."""
    region_lines = with_bold_marked(region_lines, page.ink, page.scale)
    body = body_size(ln for lines in region_lines for ln in lines)
    captions = [b.box for b in detected or () if b.label == "caption"]
    boxes = [BBox(*box).scaled(1 / page.scale) for box in layout.regions]
    drawn = [
        detected is None
        and min(bbox.width, bbox.height) >= FIGURE_MIN_IN * 72
        and len(lines) < 3
        and _text_share(lines, bbox) < FIGURE_MAX_TEXT_SHARE
        and _drawing_share(page, box, lines) >= MIN_FIGURE_INK
        for box, bbox, lines in zip(layout.regions, boxes, region_lines, strict=True)
    ]
    texts, notes = split_margin([[] if figure else lines for figure, lines in zip(drawn, region_lines, strict=True)])
    # Regions side by side whose lines pair up row by row: a table without rules, read as one.
    unruled = aligned_tables(boxes, texts, layout.form_boxes) if page.rules is not None else {}
    in_tables = {k for _, run in unruled.values() for k in run}
    out: list[list[Block]] = []
    for k, (box, figure, lines, text) in enumerate(zip(layout.regions, drawn, region_lines, texts, strict=True)):
        if k in in_tables:
            out.append([unruled[k][0]] if k in unruled else [])
        elif figure:
            out.append([figures.add(box, lines)])
        else:
            chunks = at_notes(mark_monospace(text, body), notes)
            blocks = [b for chunk in chunks for b in build_blocks(chunk, page.height, body)]
            if layout.form_boxes and layout.form_boxes[k] >= 0:
                blocks = [_not_title(b) for b in blocks]
            out.append([_relabel(b, captions, page.scale) for b in blocks])
    return out, build_blocks(mark_monospace(reading_sort(notes), body), page.height, body)


IslandTask = Literal["text", "formula", "table"]


class IslandReader(Protocol):
    """How one OCR strategy gets the text of an island: the whole page's words that fell in it
    (ocr/whole_page.py), or a crop of it read on its own (ocr/by_region.py)."""

    def read(self, island: Island, task: IslandTask) -> tuple[list[Line], str | None]:
        """Its lines in points, and the engine's markup (a formula's LaTeX) if any: ``task`` says
        what it holds, a figure's labels ("text"), a formula, or a table without rules."""
        ...

    def ruled_table(self, island: Island, grid: TableGrid) -> tuple[Block, list[Line]]:
        """The table of a ruled island, and the lines its figure keeps should no cell hold text."""
        ...


def island_blocks(page: OcrPage, island: Island, figures: Figures, reader: IslandReader, body: float) -> list[Block]:
    """The blocks of a figure, formula or table the layout found, whichever way it was read. A
    figure holding running text of the page's ``body`` size is read as text: the layout model
    sometimes calls a page of prose or a back cover a figure; a figure whose ruled grid holds its
    words row by row is a table (``fills_grid``); and a table without rules whose lines lead to
    their page numbers is a list of contents (it took a Chinese one for a table)."""
    bbox = BBox(*island.box).scaled(1 / page.scale)
    if island.kind == "figure":
        labels, _ = reader.read(island, "text")
        if holds_running_text(labels, body):
            return build_blocks(mark_monospace(reading_sort(labels), body), page.height, body or body_size(labels))
        cells = grid_cells_to_points(island.grid, page.scale) if island.grid is not None else []
        if island.grid is not None and fills_grid(labels, cells):
            table = reader.ruled_table(island, island.grid)[0]
            return _with_text_round(table, _outside(labels, cells), page.height, body)
        example = source_beside_output(labels)
        if example is not None:
            source, output = example
            gutter = (max(ln.bbox.x1 for ln in source) + min(ln.bbox.x0 for ln in output)) / 2 * page.scale
            x0, y0, x1, y1 = island.box
            out_box = (max(x0, min(x1 - 1, round(gutter))), y0, x1, y1)
            return [_code_block(source), figures.add(out_box, output)]
        return [figures.add(island.box, labels)]
    if island.kind == "formula":
        lines, latex = reader.read(island, "formula")
        text = join_words([ln.text for ln in lines])
        return [Block("formula", bbox, text, mean_confidence(lines), tuple(lines), latex=latex)]
    if island.grid is None:
        lines, _ = reader.read(island, "table")
        if is_contents(lines):
            return build_blocks(mark_monospace(reading_sort(lines), body), page.height, body or body_size(lines))
        return whitespace_table(lines, bbox, page.height, body)
    block, drawing = reader.ruled_table(island, island.grid)
    if block.table is not None and not any(c.text for c in block.table.cells):
        return [figures.add(island.box, drawing)]  # a grid of lines with no text in it is a drawing, not a table
    return [block]


def _outside(lines: Sequence[Line], cells: Sequence[TableCell]) -> list[Line]:
    """The parts of ``lines`` whose words lie in none of ``cells``."""
    out = []
    for line in lines:
        words = [w for w in line.words if not any(c.bbox.contains_center_of(w.bbox) for c in cells)]
        if words:
            out.append(split_line(line, words))
    return out


def _with_text_round(table: Block, lines: list[Line], page_height: float, body: float) -> list[Block]:
    """A figure's ruled table with the figure's text outside the grid before and after it, by
    where it stands: a receipt the layout model calls a figure holds its shop's name above the
    items' grid and its total below, which were lost with the figure."""
    if not lines:
        return [table]
    size = body or body_size(lines)

    def blocks_of(part: list[Line]) -> list[Block]:
        return build_blocks(mark_monospace(reading_sort(part), size), page_height, size) if part else []

    above = [ln for ln in lines if ln.bbox.cy < table.bbox.cy]
    below = [ln for ln in lines if ln.bbox.cy >= table.bbox.cy]
    return [*blocks_of(above), table, *blocks_of(below)]


GRID_ROWS_WITH_WORDS = 0.5  # of a figure's ruled grid's rows holding a word: a table's
GRID_WORDS = 0.6  # of a figure's words inside its grid's cells: a table's (a chart's labels are outside)


def fills_grid(lines: Sequence[Line], cells: Sequence[TableCell]) -> bool:
    """Whether the words of ``lines`` fill a ruled grid (``cells``, points) as a table's do: half
    its rows or more hold a word, and most of the words lie in its cells. A chart's grid holds
    its bars and lines, its labels stand round it; the layout model took a scanned form's table
    of labels, its rules grey hairlines, for a figure."""
    words = [w for ln in lines for w in ln.words if w.text.strip()]
    inside = [next((c for c in cells if c.bbox.contains_center_of(w.bbox)), None) for w in words]
    rows = {c.row for c in cells}
    filled = {c.row for c in inside if c is not None}
    held = sum(c is not None for c in inside)
    return len(rows) >= 2 and len(filled) >= GRID_ROWS_WITH_WORDS * len(rows) and held >= GRID_WORDS * len(words)


def in_reading_order(
    layout: RasterLayout, per_region: list[list[Block]], island_blocks: list[list[Block]], notes: list[Block]
) -> list[Block]:
    """Each island's blocks go before the text region it was placed ahead of (or at the end);
    margin notes after the blocks they stand beside."""
    blocks: list[Block] = []
    for i, region in enumerate(per_region):
        blocks.extend(b for bs, after in zip(island_blocks, layout.island_after, strict=True) if after == i for b in bs)
        blocks.extend(region)
    blocks.extend(
        b for bs, after in zip(island_blocks, layout.island_after, strict=True) if after >= len(per_region) for b in bs
    )
    return with_notes(blocks, notes)


def whitespace_table(lines: list[Line], bbox: BBox, page_height: float, body: float) -> list[Block]:
    """A table without vertical rules, from its lines in points: rows are the lines, columns the
    gaps that no word crosses. Source beside its output is read as a code block, then the output.
    Lines that are no table — fewer than two columns or rows, or a column of prose (``_prose``:
    the layout model calls columns of prose, a list of references and the boxes of a flowchart
    tables) — are read as text, as the page is (``as_text``); as one text block, a flowchart's
    boxes were read straight across, and two columns of references lost their paragraphs."""
    lines = sorted((ln for ln in lines if ln.words), key=lambda ln: ln.bbox.y0)
    columns = column_bounds([w.bbox for ln in lines for w in ln.words], min_gap=MIN_COLUMN_GAP_PT)
    if len(columns) < 2 or len(lines) < 2:
        return as_text(lines, page_height, body)
    example = _split_example(lines, columns)
    if example is not None:
        source, output = example
        return [
            _code_block(source),
            Block(
                "text",
                union(ln.bbox for ln in output),
                join_words([ln.text for ln in output]),
                mean_confidence(output),
                tuple(output),
            ),
        ]
    per_column = [[split_line(ln, w) for ln in lines if (w := _words_in(ln, [column]))] for column in columns]
    if any(_prose(column) for column in per_column):
        return as_text(lines, page_height, body)
    cells = []
    for r, line in enumerate(lines):
        for c, column in enumerate(columns):
            text = _joined(_words_in(line, [column]))
            cells.append(TableCell(r, c, text, BBox(column[0], line.bbox.y0, column[1], line.bbox.y1)))
    table = Table(len(lines), len(columns), tuple(cells))
    return [Block("table", bbox, table_text(table), mean_confidence(lines), (), table=table)]


PROSE_MIN_WORDS = 4  # a column whose lines hold fewer words (the median) is a column of cells


def _prose(column: Sequence[Line]) -> bool:
    """Whether a column's lines are prose: lines of several words (short words alike in width,
    "alpha \\alpha" over "beta \\beta", look like lines that run on and fill their column) that
    are not cells (``cells_like``)."""
    words = sorted(len(ln.words) for ln in column)
    return bool(words) and words[len(words) // 2] >= PROSE_MIN_WORDS and not cells_like(column)


def as_text(lines: Sequence[Line], page_height: float, body: float) -> list[Block]:
    """Blocks of ``lines`` (points) read as a page's text: cut into regions by XY-cut of their
    words (layout/word_regions.py), each region's lines in paragraphs, lists and titles, against
    their own body size (``body``, the page's, when they have none): the text outside the area
    may be a page's footnotes, against which all of it read as titles."""
    size = body_size(lines) or body
    return [
        b
        for region in word_regions(lines)
        for b in build_blocks(mark_monospace(reading_sort(region), size), page_height, size)
    ]


def source_beside_output(lines: Sequence[Line]) -> tuple[list[Line], list[Line]] | None:
    """The source lines (monospace) and the output lines of an example set beside what it
    produces, or None when ``lines`` (points) are not one. The layout model calls many a framed
    LaTeX example a figure; read as one, its code and its output came back interleaved line by
    line (lshort-zh p. 43 scan: CER 0.17)."""
    kept = sorted((ln for ln in lines if ln.words), key=lambda ln: ln.bbox.y0)
    columns = column_bounds([w.bbox for ln in kept for w in ln.words], min_gap=MIN_COLUMN_GAP_PT)
    if len(columns) < 2 or len(kept) < 2:
        return None
    return _split_example(kept, columns)


def _split_example(
    lines: Sequence[Line], columns: Sequence[tuple[float, float]]
) -> tuple[list[Line], list[Line]] | None:
    """Lines sorted top-down, split at their first column gap when the left side is source and
    the right its output (``is_source_beside_output``)."""
    parts = [(ln, _words_in(ln, columns[:1]), _words_in(ln, columns[1:])) for ln in lines]
    if not is_source_beside_output([(_joined(left), _joined(rest)) for _, left, rest in parts]):
        return None
    source = [replace(split_line(ln, left), monospace=True) for ln, left, _ in parts if left]
    output = [split_line(ln, rest) for ln, _, rest in parts if rest]
    return source, output


def _code_block(source: Sequence[Line]) -> Block:
    return Block("code", union(ln.bbox for ln in source), code_text(source), mean_confidence(source), tuple(source))


def _words_in(line: Line, columns: Sequence[tuple[float, float]]) -> list[Word]:
    return [w for w in line.words if any(x0 <= w.bbox.cx <= x1 for x0, x1 in columns)]


def _joined(words: Sequence[Word]) -> str:
    return join_words([w.text for w in words])


def numbers_after_leaders(page: OcrPage, lines: tuple[Line, ...]) -> tuple[Line, ...]:
    """``lines`` (page pixels) where a line ends at its leader with ink right of it (layout/leaders.py),
    with the words read there: with the dots painted out, Tesseract leaves a lone page number out
    of its page reading, and RapidOCR out of a region's (a scanned Japanese contents page, its
    "10"). The ink of a column of such lines is read as one block, where a lone digit has its
    neighbours (read alone, "4" came back as "A" or "a" as the crop's margin changed)."""
    out = list(lines)
    height, width = page.straight.gray.shape
    for column in unread_after_leaders(lines, page.ink, page.dpi):
        box = union(b for _, b in column)
        pad = max(2, round(max(b.height for _, b in column)))
        x0, y0 = max(0, int(box.x0) - pad), max(0, int(box.y0) - pad)
        x1, y1 = min(width, int(box.x1) + pad), min(height, int(box.y1) + pad)
        crop = Image.fromarray(page.straight.gray[y0:y1, x0:x1])
        read = [
            moved(ln, x0, y0)
            for ln in page.engine.recognize(crop, RecognitionRequest(page.languages, "cell", page.dpi)).lines
        ]
        for i, after in column:
            words = [w for ln in read if after.y0 <= ln.bbox.cy <= after.y1 for w in words_of(ln)]
            if words:
                out[i] = with_words(out[i], [*out[i].words, *words])
    return tuple(out)
