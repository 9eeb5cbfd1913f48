"""Watermarks on a text layer: a word such as DRAFT or CONFIDENTIAL set across the page in huge
type at an angle. It is no part of the page's layout: left among the lines, its box (as wide and
as tall as the page's middle) covered the columns and tables it lies over, so they were cut as
one region, and an exam's answer grid was read letter by letter out of order."""

from __future__ import annotations

from collections.abc import Sequence

from ocrqueue.documents.layout.blocks import line_size, text_confidence
from ocrqueue.documents.model import Block, Line

WATERMARK_SIZE = 3.0  # times the page's body size, at least
WATERMARK_SLANT = 2.0  # box height over type size, at least: the line is set at an angle


def is_watermark(line: Line, body: float) -> bool:
    """A line in type far larger than the body whose box is much taller than its type: set
    slanting across the page (a huge title set level has a box about as tall as its type)."""
    size = line_size(line)
    return body > 0 and size >= WATERMARK_SIZE * body and line.bbox.height >= WATERMARK_SLANT * size


def split_watermarks(lines: Sequence[Line], body: float) -> tuple[list[Line], list[Line]]:
    """The page's lines without its watermarks, and the watermarks."""
    marks = [ln for ln in lines if is_watermark(ln, body)]
    return [ln for ln in lines if ln not in marks], marks


def watermark_blocks(marks: Sequence[Line]) -> list[Block]:
    """A watermark is read as a block of its own, before the page's text (where a producer writes
    it, and where a reader's eye first meets it)."""
    return [Block("text", ln.bbox, ln.text, text_confidence([ln]), (ln,)) for ln in marks]
