"""Pages set in vertical columns (Japanese and Chinese ``tategaki``): characters top to bottom,
columns right to left. Lines here are columns; the horizontal layout rules (rows, gaps between
lines, indents) do not apply to them, so such a page's text is read column by column, right to
left, and cut into paragraphs where the gap between columns widens or a column ends short. A page
in tiers (a newspaper's 段: rows of columns one above the other) is read tier by tier, top down.
Some producers (Acrobat Distiller's gazettes) write every character as a text object of its own, so
a text layer gives a column as a stack of one-character lines: they are stacked into columns
first (``stacked_into_columns``)."""

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
PIECE_MAX_CHARS = 5  # a piece of a column: a character, or a few set as one text object ("む。」")
PIECE_MAX_WIDTH = 1.5  # piece widths (the median's) across: wider is not one column's piece
SAME_COLUMN = 0.4  # piece widths between two pieces' centres across: one column
PIECE_GAP = 1.0  # piece heights of blank paper between two pieces down one column, at most
TIER_OVERLAP = 0.5  # of a column's height (or the tier's, if shorter) beside a tier: it stands in it


def is_column(line: Line) -> bool:
    """A line of East Asian wide characters set top to bottom (Latin turned on its side, on a
    page shown rotated, is not read as a column)."""
    box = line.bbox
    return len(line.text) >= 3 and box.height >= COLUMN_MIN_ASPECT * max(box.width, 1e-6) and mostly_wide(line.text)


def is_vertical(lines: Sequence[Line]) -> bool:
    """Whether most of the characters of ``lines`` are set in vertical columns."""
    total = sum(len(line.text) for line in lines)
    return total > 0 and sum(len(line.text) for line in lines if is_column(line)) >= VERTICAL_MIN_SHARE * total


def _is_piece(line: Line, width: float) -> bool:
    return len(line.text) <= PIECE_MAX_CHARS and line.bbox.width <= PIECE_MAX_WIDTH * width and mostly_wide(line.text)


def stacked_into_columns(lines: Sequence[Line]) -> list[Line]:
    """``lines`` with one-character lines that stand one under another, as a column's characters
    do, joined into one line a column (top to bottom; a wide blank down a column ends it). Only
    when such pieces hold most of the characters: on a horizontal page a stack of one-character
    lines is a list of cells, not a column."""
    wide = [ln for ln in lines if mostly_wide(ln.text) and len(ln.text) <= PIECE_MAX_CHARS]
    if not wide:
        return list(lines)
    width = statistics.median(ln.bbox.width / max(1, len(ln.text.strip())) for ln in wide)
    pieces = [ln for ln in lines if _is_piece(ln, width)]
    total = sum(len(ln.text) for ln in lines)
    if sum(len(ln.text) for ln in pieces) < VERTICAL_MIN_SHARE * total:
        return list(lines)
    across: list[list[Line]] = []
    for piece in sorted(pieces, key=lambda ln: -ln.bbox.cx):
        if across and abs(across[-1][0].bbox.cx - piece.bbox.cx) <= SAME_COLUMN * width:
            across[-1].append(piece)
        else:
            across.append([piece])
    columns: list[Line] = []
    for stack in across:
        runs: list[list[Line]] = []
        for piece in sorted(stack, key=lambda ln: ln.bbox.y0):
            if runs and piece.bbox.y0 - runs[-1][-1].bbox.y1 <= PIECE_GAP * width:
                runs[-1].append(piece)
            else:
                runs.append([piece])
        columns += [_column_of(run) for run in runs]
    chosen = {id(ln) for ln in pieces}
    return [ln for ln in lines if id(ln) not in chosen] + columns


def _column_of(run: list[Line]) -> Line:
    if len(run) == 1:
        return run[0]
    confidences = [ln.confidence for ln in run if ln.confidence is not None]
    return Line(
        "".join(ln.text.replace(" ", "") for ln in run),
        union(ln.bbox for ln in run),
        min(confidences) if confidences else None,
        tuple(w for ln in run for w in ln.words),
        run[0].font_size,
        False,
    )


def _tiers(lines: Sequence[Line]) -> list[list[Line]]:
    """Lines in tiers, top down: a line stands in a tier when half of its height, or of the tier's
    if that is shorter, is beside it."""
    tiers: list[tuple[float, float, list[Line]]] = []
    for line in sorted(lines, key=lambda ln: ln.bbox.y0):
        box = line.bbox
        if tiers:
            top, bottom, members = tiers[-1]
            if min(bottom, box.y1) - max(top, box.y0) >= TIER_OVERLAP * min(box.height, bottom - top):
                tiers[-1] = (top, max(bottom, box.y1), [*members, line])
                continue
        tiers.append((box.y0, box.y1, [line]))
    return [members for _, _, members in tiers]


def vertical_blocks(lines: Sequence[Line]) -> list[Block]:
    """Text blocks of a vertical page: tier by tier, top down, its columns right to left, a
    paragraph per run of columns."""
    if not lines:
        return []
    width = statistics.median(ln.bbox.width for ln in lines)
    groups: list[list[Line]] = []
    for tier in _tiers(lines):
        columns = sorted(tier, key=lambda ln: -ln.bbox.cx)
        bottom = max(ln.bbox.y1 for ln in columns)
        groups.append([columns[0]])
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
