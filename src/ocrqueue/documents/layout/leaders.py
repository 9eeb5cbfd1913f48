"""Dot leaders on a rendered page: the rows of evenly spaced dots that lead a table of contents'
entry to its page number (or a form's label to its blank). An engine reads such a row as letters
("2... ee", "oaa"), and the layout, which sees the dots as too little ink, cuts the row in three:
entry, dots, and a column of page numbers read after the entries. A row of dots found here becomes
one word, its dots as printed, with the role "leader", and the line holding it stays one line from
entry to number (ocr/whole_page.py). A dev reference manual's contents pages read 0.57-0.78 CER.
A form's guide, dots 9 to 14 pt apart from a line's label to its box, is painted out and makes no word."""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ocrqueue.documents.geometry import BBox, PixelBox, fringed, union
from ocrqueue.documents.layout.rows import with_words
from ocrqueue.documents.layout.straighten import Pieces, ink_pieces
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line, Word

DOT_SIDE_IN = (0.004, 0.03)  # a dot's side, in inches: 0.3 to 2.2 pt
MAX_DOT_ASPECT = 2.0  # of a dot's longer side to its shorter
MIN_DOT_FILL = 0.4  # of its box a dot's ink fills: a dot is solid, a comma's tail or a tilde is not
MIN_DOTS = 8  # in a row: an ellipsis has three, a leader tens
PERIOD_IN = (0.015, 0.12)  # centre to centre, in inches
# Dots farther apart, up to 14.4 pt, are a form's guide from a label to its box (the IRS draws
# its guides 12 pt apart, as paths: no text in the layer). An engine reads them as letters
# ("ee", "esa ee Siig eed"); they are painted out and no word is made of them.
GUIDE_PITCH_IN = 0.2
# A guide's row is dots on blank paper: ink beside them within this many dot heights above their
# bottoms (digits on either side of decimal points in a row of numbers) makes it no guide.
GUIDE_CLEAR = 4.0
PERIOD_SLACK = 0.2  # of the row's first period, how far each next one may differ (scans jitter)
BASELINE_IN = 0.01  # how far apart the bottoms of one row's dots may lie, in inches
SPACED = 1.5  # dots whose gap is this many dot widths or more are written ". . .", else "..."
LEADER_CHARS = ".·•…,:;_-"  # what an engine makes of a leader's dots at a word's ends
INSIDE = 0.5  # of a word's width inside a leader that makes the word the leader's misreading


@dataclass(frozen=True)
class Leader:
    """A row of dots: its box in pixels, how many dots, their pitch (pixels) and whether they are
    set apart."""

    box: BBox
    dots: int
    pitch: float
    spaced: bool
    guide: bool = False

    @property
    def text(self) -> str:
        return (" " if self.spaced else "").join("." * self.dots)


def find_leaders(ink: Mask, dpi: int, pieces: Pieces | None = None) -> list[Leader]:
    """Rows of at least MIN_DOTS small solid dots on one baseline at an even pitch; ``pieces``:
    the ink's connected pieces when they were found already."""
    lo, hi = (max(1, round(side * dpi)) for side in DOT_SIDE_IN)
    _, stats = pieces if pieces is not None else ink_pieces(ink)
    x, y, w, h, area = (stats[1:, i] for i in range(5))
    short, long = np.minimum(w, h), np.maximum(w, h)
    dot = (short >= lo) & (long <= hi) & (long <= MAX_DOT_ASPECT * short) & (area >= MIN_DOT_FILL * w * h)
    boxes = [BBox(float(x[i]), float(y[i]), float(x[i] + w[i]), float(y[i] + h[i])) for i in np.flatnonzero(dot)]
    tolerance = max(1.0, BASELINE_IN * dpi)
    return [leader for row in _rows(boxes, tolerance) for leader in _runs(row, dpi, ink)]


def _on_blank_paper(ink: Mask, dots: Sequence[BBox]) -> bool:
    """Whether the paper between each two dots, from their bottom up ``GUIDE_CLEAR`` dot heights,
    is blank (a pixel's fringe of the dots aside): between a row's decimal points stand digits."""
    for a, b in itertools.pairwise(dots):
        height = max(a.height, b.height)
        y0, y1 = max(0, int(min(a.y1, b.y1) - GUIDE_CLEAR * height)), int(max(a.y1, b.y1))
        if np.count_nonzero(ink[y0:y1, int(a.x1) + 1 : int(b.x0) - 1]) > height:
            return False
    return True


def _rows(dots: list[BBox], tolerance: float) -> list[list[BBox]]:
    """Dots grouped by their bottoms, each within ``tolerance`` of the previous one's, left to right."""
    rows: list[list[BBox]] = []
    for box in sorted(dots, key=lambda b: b.y1):
        if rows and box.y1 - rows[-1][-1].y1 <= tolerance:
            rows[-1].append(box)
        else:
            rows.append([box])
    return [sorted(row, key=lambda b: b.x0) for row in rows if len(row) >= MIN_DOTS]


def _runs(row: list[BBox], dpi: int, ink: Mask) -> list[Leader]:
    """The runs of a row's dots at an even pitch."""
    lo, hi = PERIOD_IN[0] * dpi, GUIDE_PITCH_IN * dpi
    found: list[Leader] = []
    start = 0
    while start < len(row) - 1:
        end, pitch = start + 1, row[start + 1].cx - row[start].cx
        if lo <= pitch <= hi:
            while end + 1 < len(row) and abs(row[end + 1].cx - row[end].cx - pitch) <= max(1.0, PERIOD_SLACK * pitch):
                end += 1
        if end - start + 1 >= MIN_DOTS and lo <= pitch <= hi:
            dots = row[start : end + 1]
            width = statistics.median(b.width for b in dots)
            spaced, guide = pitch - width >= SPACED * width, pitch > PERIOD_IN[1] * dpi
            if not guide or _on_blank_paper(ink, dots):
                found.append(Leader(union(dots), len(dots), pitch, spaced, guide))
            start = end + 1
        else:
            start += 1
    return found


def mark_leaders(lines: Sequence[Line], leaders: Sequence[Leader], dpi: int) -> tuple[Line, ...]:
    """``lines`` (pixels) with each leader put in the line of its row as one word with the role
    "leader": between the line ending left of it and the line starting right of it, joined into
    one (the engine reads the entry and its page number apart once the dots are painted out), or
    in place of the words an engine read from its dots. The dots at the end of a word within a
    pitch of it are cut off the word (an engine reads "perp()." and "norm..." before a leader)."""
    return tuple(line for line, _ in _joined(lines, leaders, dpi))


def mark_leaders_in_groups(groups: Sequence[Sequence[Line]], leaders: Sequence[Leader], dpi: int) -> list[list[Line]]:
    """``mark_leaders`` over lines read in groups (pixels; a page's regions, each read on its own),
    each joined line in the group of the line it starts with (its entry), where it stood: the
    layout sees too little ink in a leader's dots to keep an entry and its page number in one
    region, and a column of page numbers, read as a region of its own, comes back after the
    entries. A group whose lines all went into other groups' lines is left empty."""
    flat = [line for group in groups for line in group]
    owner = [k for k, group in enumerate(groups) for _ in group]
    out: list[list[Line]] = [[] for _ in groups]
    for line, source in _joined(flat, leaders, dpi):
        out[owner[source]].append(line)
    return out


def painted_out(leaders: Sequence[Leader], dpi: int) -> list[PixelBox]:
    """The boxes (pixels) to paint white so that an engine does not see the leaders: their dots
    and a margin around them (a scan's grey fringe)."""
    return fringed((leader.box for leader in leaders), dpi)


def _joined(lines: Sequence[Line], leaders: Sequence[Leader], dpi: int) -> list[tuple[Line, int]]:
    """The lines of ``mark_leaders``, each with the index in ``lines`` of its first part."""
    out = [(line, i) for i, line in enumerate(lines)]
    reach = JOIN_IN * dpi
    for leader in (leader for leader in leaders if not leader.guide):
        box = leader.box
        level = [i for i, (line, _) in enumerate(out) if line.text.strip() and _level(box, line)]
        over = [i for i in level if _overlap(out[i][0].bbox, box) > leader.pitch]
        left = [i for i in level if i not in over and box.x0 - reach <= out[i][0].bbox.x1 <= box.x0 + leader.pitch]
        right = [i for i in level if i not in over and box.x1 - leader.pitch <= out[i][0].bbox.x0 <= box.x1 + reach]
        near = over[:1]
        if not near:
            near = [max(left, key=lambda i: out[i][0].bbox.x1)] if left else []
            near += [min(right, key=lambda i: out[i][0].bbox.x0)] if right else []
        if not near:
            continue
        words = [w for i in near for w in words_of(out[i][0])]
        out[near[0]] = (_with_leader(out[near[0]][0], words, leader), out[near[0]][1])
        for i in sorted(near[1:], reverse=True):
            del out[i]
    return _numbers_without_leaders(out, dpi)


PAGE_NUMBER = re.compile(r"\d{1,4}|[ivxlcdm]{1,8}", re.IGNORECASE)
ALIGN_IN = 0.05  # how far apart the right edges of one column's page numbers lie, at most (inches)
NEAR_LEADERS = 4.0  # line heights from a leader's line within which a number without one is its page's


def _numbers_without_leaders(out: list[tuple[Line, int]], dpi: int) -> list[tuple[Line, int]]:
    """``out`` with each lone page number set in the column of the leaders' page numbers joined to
    the line ending left of it on its row: an entry without a leader (a chapter's, as DBLaTeX sets
    them) is read apart from its number, which a region-by-region reading puts after the entries.
    Numbers near the leaders' lines only: a running head's page number is another column."""
    ruled = [line for line, _ in out if holds_leader(line)]
    edges = [
        ln.words[-1].bbox.x1 for ln in ruled if ln.words[-1].role is None and PAGE_NUMBER.fullmatch(ln.words[-1].text)
    ]
    if not edges:
        return out
    edge, align = statistics.median(edges), ALIGN_IN * dpi
    lone = [
        line
        for line, _ in out
        if not holds_leader(line)
        and PAGE_NUMBER.fullmatch(line.text.strip())
        and abs(line.bbox.x1 - edge) <= align
        and any(abs(line.bbox.cy - ln.bbox.cy) <= NEAR_LEADERS * ln.bbox.height for ln in ruled)
    ]
    for number in lone:
        i = next(k for k, (line, _) in enumerate(out) if line is number)
        beside = [
            k for k, (line, _) in enumerate(out) if line.bbox.x1 < number.bbox.x0 and _same_row(line.bbox, number.bbox)
        ]
        if not beside:
            continue
        k = max(beside, key=lambda k: out[k][0].bbox.x1)
        line, source = out[k]
        out[k] = (with_words(line, [*words_of(line), *words_of(number)]), source)
        del out[i]
    return out


def _same_row(a: BBox, b: BBox) -> bool:
    return min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5 * min(a.height, b.height)


JOIN_IN = 0.6  # inches between a leader and the line it leads from or to, at most


def _overlap(line: BBox, leader: BBox) -> float:
    """How far (pixels) a line runs over a leader: a line box reaching a few pixels into the
    painted-out dots (RapidOCR's boxes of a scanned entry do) ends at the leader, it does not
    hold a reading of its dots."""
    return min(line.x1, leader.x1) - max(line.x0, leader.x0)


def _level(box: BBox, line: Line) -> bool:
    """The leader's dots lie in the line's height (on its baseline, above its descenders)."""
    return line.bbox.y0 <= box.cy <= line.bbox.y1 + box.height


def _with_leader(line: Line, words: Sequence[Word], leader: Leader) -> Line:
    box = leader.box
    kept: list[Word] = []
    for word in words:
        inside = max(0.0, min(word.bbox.x1, box.x1) - max(word.bbox.x0, box.x0))
        if word.role is None and inside >= INSIDE * word.bbox.width:
            continue
        text = word.text
        if word.bbox.x0 < box.x0 <= word.bbox.x1 + leader.pitch:
            text = text.rstrip(LEADER_CHARS)
        if word.bbox.x0 - leader.pitch <= box.x1 < word.bbox.x1:
            text = text.lstrip(LEADER_CHARS)
        if text:
            kept.append(replace(word, text=text))
    ordered = sorted([*kept, Word(leader.text, box, 1.0, role="leader")], key=lambda w: w.bbox.x0)
    confidences = [w.confidence for w in kept if w.confidence is not None]
    confidence = sum(confidences) / len(confidences) if confidences else line.confidence
    return replace(with_words(line, ordered), confidence=confidence)


def words_of(line: Line) -> tuple[Word, ...]:
    """A line's words; a line an engine gave without word boxes as one word (RapidOCR does when
    its characters' positions do not match its text)."""
    return line.words or (Word(line.text, line.bbox, line.confidence),)


def holds_leader(line: Line) -> bool:
    return any(w.role == "leader" for w in line.words)


CONTENTS_SHARE = 0.5  # of a block's lines leading to a page number that make it a list of contents


def is_contents(lines: Sequence[Line]) -> bool:
    """Whether ``lines`` are a list of contents: ``CONTENTS_SHARE`` or more of them lead to a page
    number, one word or none after a leader (a statistical table's first column leads to several)."""
    read = [ln for ln in lines if ln.text.strip()]
    return bool(read) and sum(_leads_to_number(ln) for ln in read) >= CONTENTS_SHARE * len(read)


def _leads_to_number(line: Line) -> bool:
    roles = [w.role for w in line.words]
    return "leader" in roles and len(roles) - roles.index("leader") <= 2


def unread_after_leaders(lines: Sequence[Line], ink: Mask, dpi: int) -> list[list[tuple[int, BBox]]]:
    """(line index, box in pixels) of the ink right of each line's leader, within JOIN_IN, where
    the line ends at its leader, grouped in columns of overlapping boxes: once the dots are
    painted out, Tesseract leaves a lone page number ("1", "7") out of its page reading."""
    reach = round(JOIN_IN * dpi)
    found: list[tuple[int, BBox]] = []
    for i, line in enumerate(lines):
        if not line.words or line.words[-1].role != "leader":
            continue
        box = line.words[-1].bbox
        x0, y0, y1 = int(box.x1) + 1, int(line.bbox.y0), int(line.bbox.y1) + 1
        part = ink[y0:y1, x0 : x0 + reach]
        columns, rows = np.flatnonzero(part.any(axis=0)), np.flatnonzero(part.any(axis=1))
        if columns.size:
            found.append((i, BBox(x0 + columns[0], y0 + rows[0], x0 + columns[-1] + 1, y0 + rows[-1] + 1)))
    groups: list[list[tuple[int, BBox]]] = []
    for item in sorted(found, key=lambda f: f[1].x0):
        if groups and item[1].x0 <= max(b.x1 for _, b in groups[-1]):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups
