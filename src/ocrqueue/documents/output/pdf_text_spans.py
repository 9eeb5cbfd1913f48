"""Where each piece of recognised text goes on the page: spans of text, each stretched over one box.

A line with word boxes becomes one span per word, with the line's own separators (usually one
space) as spans in the gaps between them, so that extracting the text gives back the line exactly:
no spaces appear where the recogniser put none (Chinese: words not separated in the text are one
span) and none are lost where it did. A table row is a line of cells. Text that comes without word
boxes is spread over its line or block box.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, PageResult, TableCell

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Span:
    """`text` laid over `box` horizontally; vertically the text sits on the bottom of `line_box`
    and is as tall as it, so the words of one line share a baseline and select as one line."""

    text: str
    box: BBox
    line_box: BBox


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
    aligned = _align_words(line, text) if line.words else None
    return aligned if aligned is not None else [Span(text, line.bbox, line.bbox)]


def _align_words(line: Line, text: str) -> list[Span] | None:
    """Spans for the words found in order in `text`, separators between them; None when the words
    do not spell the line (then the line is laid out as one span)."""
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
            left = previous.x1
            right = max(left, word.bbox.x0)
            spans.append(Span(gap, BBox(left, line.bbox.y0, right, line.bbox.y1), line.bbox))
        spans.append(Span(word_text, word.bbox, line.bbox))
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
            joined[-1] = Span(previous.text + span.text, box, span.line_box)
        else:
            joined.append(span)
    return joined
