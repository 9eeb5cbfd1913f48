"""Where each piece of recognised text goes on the page: spans of text, each stretched over one box.

A line with word boxes becomes one span per word, with the line's own separators (usually one
space) as spans in the gaps between them, so that extracting the text gives back the line exactly:
no spaces appear where the recogniser put none (Chinese: words not separated in the text are one
span) and none are lost where it did. A table row is a line of cells. Text that comes without word
boxes is spread over its line or block box. Right-to-left text is drawn as a PDF producer draws it,
letters left to right as they sit on the page (``Span.drawn``): viewers (PDFium, poppler) turn
that back into logical order when they copy it; logical order drawn left to right would come back
reversed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ocrqueue.documents.bidi import has_rtl, levels, logical_is_rtl, reorder, visual_order
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, PageResult, TableCell

_WHITESPACE = re.compile(r"\s+")
# The narrowest a separator is drawn, in line heights: PDFium leaves out a space of no width, and
# an engine's boxes for two words may touch or overlap (Tesseract's for "و" and the next word).
_LEAST_GAP = 0.2


@dataclass(frozen=True)
class Span:
    """`text` laid over `box` horizontally; vertically the text sits on the bottom of `line_box`
    and is as tall as it, so the words of one line share a baseline and select as one line."""

    text: str
    box: BBox
    line_box: BBox
    rtl: bool = False  # the span's line is a right-to-left paragraph

    @property
    def drawn(self) -> str:
        """The text in the order its letters are drawn, left to right."""
        return visual_order(self.text, self.rtl) if self.rtl or has_rtl(self.text) else self.text


def page_lines(page: PageResult) -> Iterator[list[Span]]:
    """The page's text as lines of spans, in reading order."""
    for block in page.blocks:
        yield from _block_lines(block)


def page_text(page: PageResult) -> str:
    """The text the layer carries, line by line: what a viewer's copy of the whole page gives back."""
    return "\n".join("".join(span.text for span in line) for line in page_lines(page))


def _block_lines(block: Block) -> Iterator[list[Span]]:
    if block.lines:
        for line in block.lines:
            spans = _line_spans(line)
            if spans:
                yield spans
    elif block.table is not None:
        rows: dict[int, list[TableCell]] = {}
        for cell in block.table.cells:
            if cell.text.strip():
                rows.setdefault(cell.row, []).append(cell)
        for _, cells in sorted(rows.items()):
            yield _row_spans(sorted(cells, key=lambda cell: cell.col))
    else:
        text = _WHITESPACE.sub(" ", block.text).strip()
        if text:
            yield [Span(text, block.bbox, block.bbox)]


def _row_spans(cells: list[TableCell]) -> list[Span]:
    """A table row as one line: its cells, a space between each two (cells touch, so the space is
    as wide as nothing; it is there so the cells do not run together when copied)."""
    spans: list[Span] = []
    for cell in cells:
        if spans:
            edge = spans[-1].box.x1
            spans.append(Span(" ", BBox(edge, cell.bbox.y0, max(edge, cell.bbox.x0), cell.bbox.y1), cell.bbox))
        spans.append(Span(_WHITESPACE.sub(" ", cell.text).strip(), cell.bbox, cell.bbox))
    return spans


def _line_spans(line: Line) -> list[Span]:
    text = _WHITESPACE.sub(" ", line.text).strip()
    if not text:
        return []
    rtl = has_rtl(text) and logical_is_rtl(text)
    aligned = _align_words(line, text, rtl) if line.words else None
    spans = aligned if aligned is not None else [Span(text, line.bbox, line.bbox, rtl)]
    return [run for span in spans for run in _directional_runs(span)] if has_rtl(text) else spans


def _directional_runs(span: Span) -> list[Span]:
    """A span holding both directions ("ב-12%") as one span per run, in logical order, each over
    its share of the box: a viewer reorders one drawn run at a time, and its rules for where a
    "-" or a "%" between two runs belongs are not ours."""
    text_levels = levels(span.text, span.rtl)
    if span.text.isspace() or len({level % 2 for level in text_levels}) < 2:
        return [span]
    position = {index: place for place, index in enumerate(reorder(text_levels))}
    width = span.box.width / len(span.text)
    runs: list[Span] = []
    start = 0
    for end in range(1, len(span.text) + 1):
        if end < len(span.text) and text_levels[end] % 2 == text_levels[start] % 2:
            continue
        places = [position[i] for i in range(start, end)]
        x0 = span.box.x0 + min(places) * width
        box = BBox(x0, span.box.y0, x0 + len(places) * width, span.box.y1)
        runs.append(Span(span.text[start:end], box, span.line_box, span.rtl))
        start = end
    return runs


def _align_words(line: Line, text: str, rtl: bool) -> list[Span] | None:
    """Spans for the words found in order in `text`, separators between them (in the gap between
    the two words, whichever side the next one is on); None when the words do not spell the line
    (then the line is laid out as one span)."""
    spans: list[Span] = []
    position = 0
    previous: BBox | None = None
    for word in line.words:
        word_text = _WHITESPACE.sub(" ", word.text).strip()
        if not word_text:
            continue
        found = text.find(word_text, position)
        if found < 0 or text[position:found].strip():
            return None
        gap = text[position:found]
        if gap:
            if previous is None:
                return None
            if word.bbox.cx < previous.cx:  # right to left
                left, right = min(word.bbox.x1, previous.x0), previous.x0
            else:
                left, right = previous.x1, max(previous.x1, word.bbox.x0)
            least = _LEAST_GAP * line.bbox.height
            if right - left < least:  # boxes that touch or overlap: a space of no width is dropped
                middle = (left + right) / 2
                left, right = middle - least / 2, middle + least / 2
            spans.append(Span(gap, BBox(left, line.bbox.y0, right, line.bbox.y1), line.bbox, rtl))
        spans.append(Span(word_text, word.bbox, line.bbox, rtl))
        previous = word.bbox
        position = found + len(word_text)
    if position != len(text) or not spans:
        return None
    return _join_runs(spans)


def _join_runs(spans: list[Span]) -> list[Span]:
    """Words with nothing between them in the text (Chinese, Japanese) become one span over their
    boxes: a viewer would take any gap between their boxes for a space that is not there."""
    joined: list[Span] = []
    for span in spans:
        previous = joined[-1] if joined else None
        if previous is not None and not previous.text.isspace() and not span.text.isspace():
            box = BBox(
                min(previous.box.x0, span.box.x0),
                min(previous.box.y0, span.box.y0),
                max(previous.box.x1, span.box.x1),
                max(previous.box.y1, span.box.y1),
            )
            joined[-1] = Span(previous.text + span.text, box, span.line_box, span.rtl)
        else:
            joined.append(span)
    return joined
