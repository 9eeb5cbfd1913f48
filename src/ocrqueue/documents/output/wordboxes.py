"""A page's text as the OCR layout formats (hOCR, ALTO) nest it: areas (blocks) of lines of words,
each with a box in pixels of the page image at a given resolution. The result's boxes are PDF
points from the page's top-left corner, so a box is scaled by dpi / 72 and rounded outwards.

Not every line carries word boxes (some engines give lines only) and not every block carries lines
(a table, a figure): such a line is one word over the line's box, a table's cell one line over the
cell's box, any other such block one line over the block's box, so no text of the JSON is lost and
nothing gets a box it was not given."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ocrqueue.documents.model import Block, Line, PageResult, Word

POINTS_PER_INCH = 72
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """`text` without the characters XML 1.0 cannot hold at all (controls such as a form feed)."""
    return _NOT_XML.sub("", text)


@dataclass(frozen=True)
class Box:
    """A box in whole pixels: left, top, right, bottom."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0


@dataclass(frozen=True)
class BoxedWord:
    text: str
    box: Box
    confidence: float | None


@dataclass(frozen=True)
class BoxedLine:
    box: Box
    words: tuple[BoxedWord, ...]


@dataclass(frozen=True)
class Area:
    """A block: `lines` of text, or none for a figure without text (`figure` is then True)."""

    block: Block
    box: Box
    lines: tuple[BoxedLine, ...]
    figure: bool


class PagePixels:
    """One page's boxes in pixels of its image at `dpi`."""

    def __init__(self, page: PageResult, dpi: float) -> None:
        self.page = page
        self._scale = dpi / POINTS_PER_INCH
        # As big as the page rendered at `dpi` (PDFium rounds a page's size in pixels up).
        self.width = max(1, math.ceil(round(page.width * self._scale, 6)))
        self.height = max(1, math.ceil(round(page.height * self._scale, 6)))

    def box(self, bbox: tuple[float, float, float, float]) -> Box:
        """`bbox` in points as whole pixels, rounded outwards and kept on the page."""
        x0, y0, x1, y1 = (v * self._scale for v in bbox)
        left, top = min(max(0, math.floor(x0)), self.width), min(max(0, math.floor(y0)), self.height)
        right, bottom = min(max(left, math.ceil(x1)), self.width), min(max(top, math.ceil(y1)), self.height)
        return Box(left, top, right, bottom)

    def areas(self) -> Iterator[Area]:
        for block in self.page.blocks:
            lines = block.lines or _block_as_lines(block)
            boxed = tuple(b for b in (self._line(line) for line in lines) if b.words)
            if boxed or block.type == "figure":
                yield Area(block, self.box(block.bbox), boxed, figure=not boxed)

    def _line(self, line: Line) -> BoxedLine:
        words = line.words or (Word(line.text.strip(), line.bbox, line.confidence),)
        return BoxedLine(
            self.box(line.bbox),
            tuple(
                BoxedWord(xml_safe(w.text), self.box(w.bbox), w.confidence) for w in words if xml_safe(w.text).strip()
            ),
        )


def _block_as_lines(block: Block) -> tuple[Line, ...]:
    if block.table is not None:
        cells = ((" ".join(c.text.split()), c.bbox) for c in block.table.cells)
        return tuple(Line(text, bbox, block.confidence) for text, bbox in cells if text)
    text = " ".join(block.text.split())
    return (Line(text, block.bbox, block.confidence),) if text else ()
