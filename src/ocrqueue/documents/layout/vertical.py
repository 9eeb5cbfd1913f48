"""Pages set in vertical columns (Japanese and Chinese ``tategaki``): characters top to bottom,
columns right to left. Lines here are columns; the horizontal layout rules (rows, gaps between
lines, indents) do not apply to them, so such a page's text is read column by column, right to
left, and cut into paragraphs where the gap between columns widens or a column ends short."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import numpy as np

from ocrqueue.documents.geometry import union
from ocrqueue.documents.layout.blocks import text_confidence
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Block, Line
from ocrqueue.documents.text import join_lines, mostly_wide

COLUMN_MIN_ASPECT = 3.0  # a column is this many times taller than wide
VERTICAL_MIN_SHARE = 0.6  # of a page's characters in columns: the page is set vertically
PARAGRAPH_GAP = 1.0  # column widths between two columns that are not in one paragraph
SHORT_COLUMN = 2.0  # column widths short of the page's longest column: the paragraph ends there


def is_column(line: Line) -> bool:
    """A line of East Asian wide characters set top to bottom (Latin turned on its side, on a
    page shown rotated, is not read as a column)."""
    box = line.bbox
    return len(line.text) >= 3 and box.height >= COLUMN_MIN_ASPECT * max(box.width, 1e-6) and mostly_wide(line.text)


def is_vertical(lines: Sequence[Line]) -> bool:
    """Whether most of the characters of ``lines`` are set in vertical columns."""
    total = sum(len(line.text) for line in lines)
    return total > 0 and sum(len(line.text) for line in lines if is_column(line)) >= VERTICAL_MIN_SHARE * total


def vertical_blocks(lines: Sequence[Line]) -> list[Block]:
    """Text blocks of a vertical page: its columns right to left, a paragraph per run of columns."""
    if not lines:
        return []
    columns = sorted(lines, key=lambda ln: -ln.bbox.cx)
    width = statistics.median(ln.bbox.width for ln in columns)
    bottom = max(ln.bbox.y1 for ln in columns)
    groups: list[list[Line]] = [[columns[0]]]
    for column in columns[1:]:
        before = groups[-1][-1]
        gap = before.bbox.x0 - column.bbox.x1
        if gap > PARAGRAPH_GAP * width or before.bbox.y1 < bottom - SHORT_COLUMN * width:
            groups.append([])
        groups[-1].append(column)
    return [
        Block(
            "text",
            union(ln.bbox for ln in group),
            join_lines([ln.text for ln in group]),
            text_confidence(group),
            tuple(group),
        )
        for group in groups
    ]


def ink_in_columns(ink: Mask) -> bool:
    """Whether a page's ink stands in vertical columns rather than in rows, told before it is read
    (an engine's horizontal model reads a vertical page as garbage): the gaps between columns
    leave more of the text area's pixel columns blank than the gaps between characters leave of
    its pixel rows; on a horizontal page the gaps between lines do the opposite."""
    rows, cols = ink.any(axis=1), ink.any(axis=0)
    if not rows.any():
        return False
    top, bottom = np.flatnonzero(rows)[[0, -1]]
    left, right = np.flatnonzero(cols)[[0, -1]]
    area = ink[top : bottom + 1, left : right + 1]
    blank_rows = 1.0 - float(area.any(axis=1).mean())
    blank_cols = 1.0 - float(area.any(axis=0).mean())
    return blank_cols > blank_rows
