"""Slices of one column rejoined after XY-cut: a justified column cut by a river of spaces.

In a newspaper's narrow justified column a few neighbouring lines may share a gap between words
as wide as a gutter ("preserved / maximum / permitted" beside "to the / extent / taking into").
XY-cut then cuts the column across above and below those lines and splits them at the gap: the
column comes back as a stack of slices, each slice's text a region of its own, so a paragraph
ended at every slice and the pieces of a line beside the river were read as two lines (dev
made-newspaper-chromium-4 p. 3: "regards" and "disclaiming" two paragraphs of one word each).

Slices are rejoined where they still read as one column: pieces side by side whose rows together
span exactly the column's width above or below them, and a region that starts an ordinary line's
gap under another with the same left and right edges (or a last line, ending short). A paragraph's
end inside the rejoined column is then found by the line rules (layout/blocks.py), as in any column.
"""

from __future__ import annotations

from collections.abc import Sequence

from ocrqueue.documents.layout.xycut import Region

EDGE_SLACK = 2  # cells by which a column's lines may start (or end) apart and make a straight edge
MAX_PIECE_LINES = 4.5  # pieces side by side at most this many lines (line pitches) tall: a river is short
SAME_ROWS = 0.6  # share of the shorter piece's rows two pieces side by side share
LINE_GAP = 1.5  # times the page's typical gap between rows: still a gap between lines
LAST_LINE = 1.5  # line pitches: a region this short under a column may be its paragraph's last line


def rejoin_slices(leaves: Sequence[Region], row_gap: int, line_height: int) -> list[Region]:
    """``leaves`` (cells, in reading order) with slices of one column joined (see module doc):
    ``row_gap`` is the page's typical gap between rows of ink, ``line_height`` its text's height."""
    max_gap = max(1, round(LINE_GAP * row_gap))
    pitch = line_height + row_gap
    out = _join_rivers(list(leaves), max_gap, pitch)
    joined: list[Region] = []
    for k, leaf in enumerate(out):
        after = out[k + 1] if k + 1 < len(out) else None
        if joined and _continues(joined[-1], leaf, after, max_gap, pitch):
            last = joined.pop()
            leaf = Region(min(last.x0, leaf.x0), last.y0, max(last.x1, leaf.x1), leaf.y1)
        joined.append(leaf)
    return joined


def _join_rivers(leaves: list[Region], max_gap: int, pitch: int) -> list[Region]:
    """Runs of pieces side by side, a few lines tall, joined when together they span the width of
    the column they stand in: the leaf just before them above, or just after them below."""
    out: list[Region] = []
    i = 0
    while i < len(leaves):
        j = i + 1
        while j < len(leaves) and _beside(leaves[j - 1], leaves[j], pitch):
            j += 1
        if j - i > 1:
            run = leaves[i:j]
            whole = Region(
                min(r.x0 for r in run), min(r.y0 for r in run), max(r.x1 for r in run), max(r.y1 for r in run)
            )
            above = out[-1] if out else None
            below = leaves[j] if j < len(leaves) else None
            if (above is not None and _over(above, whole, max_gap) and _same_edges(above, whole)) or (
                below is not None and _over(whole, below, max_gap) and _same_edges(whole, below)
            ):
                out.append(whole)
                i = j
                continue
        out.append(leaves[i])
        i += 1
    return out


def _beside(left: Region, right: Region, pitch: int) -> bool:
    """Whether ``right`` stands right of ``left`` over the same rows, both a few lines tall."""
    shared = min(left.y1, right.y1) - max(left.y0, right.y0)
    shorter = min(left.y1 - left.y0, right.y1 - right.y0)
    return (
        right.x0 >= left.x1
        and shared >= SAME_ROWS * shorter
        and max(left.y1 - left.y0, right.y1 - right.y0) <= MAX_PIECE_LINES * pitch
    )


def _over(upper: Region, lower: Region, max_gap: int) -> bool:
    """Whether ``lower`` starts under ``upper`` no further than a gap between lines."""
    return 0 <= lower.y0 - upper.y1 <= max_gap


def _same_edges(a: Region, b: Region) -> bool:
    return abs(a.x0 - b.x0) <= EDGE_SLACK and abs(a.x1 - b.x1) <= EDGE_SLACK


def _continues(upper: Region, lower: Region, after: Region | None, max_gap: int, pitch: int) -> bool:
    """Whether ``lower`` goes on with ``upper``'s column: a line's gap under it, the same left
    edge, and the same right edge, or ending short in one line (a paragraph's last line) with
    nothing beside it (``after``: the next leaf; a column's first line beside another is no
    paragraph's last)."""
    if not _over(upper, lower, max_gap) or abs(upper.x0 - lower.x0) > EDGE_SLACK:
        return False
    if abs(upper.x1 - lower.x1) <= EDGE_SLACK:
        return True
    alone = after is None or after.y0 >= lower.y1
    return alone and lower.x1 < upper.x1 and lower.y1 - lower.y0 <= LAST_LINE * pitch
