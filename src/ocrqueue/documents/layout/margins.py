"""Notes in the left margin: option names beside their descriptions (LaTeX package manuals),
dates and "New:" marks, side headings.

They sit a few points left of the body, too close for a gutter, so they were read into the body
lines beside them ("KaiMingPunct = {...} KaiMingPunct+ ⋆ 设置开明..."). Here the body's left edge
is found from where most of its lines start; words wholly left of it, across a gap, in a zone
wide enough not to be list markers or line numbers, are margin notes. They are read as blocks of
their own and placed after the body blocks that begin beside them, as typeset reading order has
them (the note follows the item it annotates).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ocrqueue.documents.layout.blocks import LIST_MARKER
from ocrqueue.documents.layout.rows import split_line
from ocrqueue.documents.model import Block, Line
from ocrqueue.documents.text import join_words

MIN_GAP_PT = 3.0  # between a note and the body's left edge
MIN_ZONE_PT = 36.0  # the notes' zone is at least half an inch wide (list markers and line numbers are narrower)
MAX_ZONE_SHARE = 0.4  # and at most this share of the text's width
MAX_ACROSS_SHARE = 0.5  # lines running across the body's edge (a wide table, a hanging heading), per note line
MIN_NOTE_CHARS = 4  # a shorter piece (a number, a bullet) stays with its line
MIN_BODY_SHARE = 0.4  # lines that start at the body's edge, of those that start at or right of it
MIN_BODY_LINES = 3
EDGE_TOLERANCE_PT = 1.5
NOTE_REACH_LINES = 2.0  # a body block beginning this many of the note's lines below its end is beside it


def split_margin(groups: Sequence[Sequence[Line]]) -> tuple[list[list[Line]], list[Line]]:
    """(each group's body lines, margin note lines), for a page's lines in groups (its text
    regions): a line with words on both sides of the body's left edge is cut in two. Without a
    margin, the groups come back as they are."""
    unchanged = [list(g) for g in groups]
    edge = _body_edge([ln for g in groups for ln in g])
    if edge is None:
        return unchanged, []
    bodies: list[list[Line]] = []
    notes: list[Line] = []
    across = 0  # lines with a word across the body's edge
    for group in groups:
        body: list[Line] = []
        for line in group:
            left = [w for w in line.words if w.bbox.x1 <= edge - MIN_GAP_PT]
            right = [w for w in line.words if w.bbox.x0 >= edge - MIN_GAP_PT]
            note = join_words([w.text for w in left])
            if len(left) + len(right) != len(line.words):
                across += 1
                body.append(line)
            elif not left or len(note) < MIN_NOTE_CHARS or LIST_MARKER.match(note + " "):
                body.append(line)
            else:
                notes.append(split_line(line, left))
                body.extend([split_line(line, right)] if right else [])
        bodies.append(body)
    if len(notes) < 2:
        return unchanged, []
    zone = min(n.bbox.x0 for n in notes)
    right_edge = max((ln.bbox.x1 for b in bodies for ln in b), default=edge)
    # Text that runs across the edge (a paragraph set out to the left, as description lists and
    # hanging headings are) means the zone is part of the text column, not a margin.
    if (
        edge - zone < MIN_ZONE_PT
        or edge - zone > MAX_ZONE_SHARE * (right_edge - zone)
        or across > MAX_ACROSS_SHARE * len(notes)
    ):
        return unchanged, []
    return bodies, notes


def with_notes(blocks: Sequence[Block], notes: Sequence[Block]) -> list[Block]:
    """``blocks`` in reading order with each note after the last body block that begins beside it
    (up to two of the note's lines below its end: a description under the item the note names);
    headers and footers are not body."""
    out = list(blocks)
    for note in sorted(notes, key=lambda b: b.bbox.y0):
        reach = note.bbox.y1 + NOTE_REACH_LINES * _line_height(note)
        beside = [i for i, b in enumerate(out) if b.type not in ("header", "footer") and b.bbox.y0 <= reach]
        first_body = next((i for i, b in enumerate(out) if b.type not in ("header",)), len(out))
        # The lowest such block, not the last in reading order: a piece of a line cut off as a
        # region of its own may come after blocks below it.
        lowest = max(beside, key=lambda i: (out[i].bbox.y0, i), default=None)
        at = first_body if lowest is None else lowest + 1
        while at < len(out) and any(out[at] is placed for placed in notes):
            at += 1  # after the notes placed there before this one, which stand above it
        out.insert(at, note)
    return out


def at_notes(lines: Sequence[Line], notes: Sequence[Line]) -> list[list[Line]]:
    """``lines`` (one region's, in reading order) cut before each line a note stands beside: the
    note names the item that line begins, so no paragraph runs on over it (read by OCR, an item
    and the next one's description were one paragraph, and its note went after both)."""
    chunks: list[list[Line]] = []
    for line in lines:
        if not chunks or any(_beside(line, note) for note in notes):
            chunks.append([])
        chunks[-1].append(line)
    return chunks


def _beside(line: Line, note: Line) -> bool:
    shared = min(line.bbox.y1, note.bbox.y1) - max(line.bbox.y0, note.bbox.y0)
    return shared > 0.5 * min(line.bbox.height, note.bbox.height)


def _body_edge(lines: Sequence[Line]) -> float | None:
    """Where most of the text's lines start (weighted by their length, give or take
    ``EDGE_TOLERANCE_PT``), when enough do."""
    starts = [(ln.words[0].bbox.x0, len(ln.text)) for ln in lines if ln.words]
    if not starts:
        return None
    best = max(starts, key=lambda s: sum(n for x, n in starts if abs(x - s[0]) <= EDGE_TOLERANCE_PT))[0]
    at_edge = [x for x, _ in starts if abs(x - best) <= EDGE_TOLERANCE_PT]
    edge = min(at_edge)
    right_of = [x for x, _ in starts if x >= edge - MIN_GAP_PT]
    if len(at_edge) < MIN_BODY_LINES or len(at_edge) < MIN_BODY_SHARE * len(right_of):
        return None
    return edge


def _line_height(block: Block) -> float:
    heights = [ln.bbox.height for ln in block.lines]
    return statistics.median(heights) if heights else 0.0
