"""Bars of a form's boxes on a rendered page: the short upright strokes left of a form's ruling
once its rules are painted out (layout/raster.py ``find_rules``: across, half an inch or more).
A comb field, boxes for one character each (a routing number, an account number), is a row of
them; a box round a line's number ("| 73 |") has two. An engine reads each as "|" and runs the
label beside them into them ("Accountmumber| | | | |"); the page's text has none of them. They
are painted out before the page is read and make no word.

A bar is a thin solid upright piece of ink. It is a box's side when it has blank paper
``CLEAR_IN`` either side (a letter's stem standing on an underline has the rest of its word beside
it) and a rule runs along both its ends, or along one with another such bar of its height on the
same rule (a box has two sides; a bracket "「" under a rule is alone). Otherwise it is one only
in an empty comb: at least ``MIN_BARS`` bars of one height on one baseline at an even pitch wider
than half their height, with blank paper between them (a sans-serif "l" or "I" is such a bar, and
a line of text may hold four at an even pitch by chance, with letters between them)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import cv2
import numpy as np

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.straighten import Pieces, ink_pieces
from ocrqueue.documents.layout.xycut import Mask

HEIGHT_IN = (0.05, 0.35)  # a bar's height, in inches: a box is a character high or more
MAX_WIDTH_IN = 0.025  # a bar's width at most (a scan's grey fringe widens a hairline to 4-6 px)
MIN_ASPECT = 4.0  # of a bar's height to its width
MIN_FILL = 0.75  # of its box a bar's ink fills: a solid stroke, not a "1" with its flag
MIN_BARS = 4
PITCH = (0.6, 5.0)  # of the bars' height, how far apart a comb's bars' centres stand
PITCH_SLACK = 0.25  # of a comb's pitch, how far each next one may differ
SAME_HEIGHT = 0.15  # of their height, how far apart a comb's bars' heights may be
BASELINE_IN = 0.015  # how far apart the bottoms of one comb's bars may lie, in inches
CLEAR_IN = 0.03  # blank paper either side of a bar on one rule, in inches: a word's letters stand closer
PAIR_IN = 1.0  # how far apart, at most, the two sides of a box hanging from one rule stand, in inches


def find_bars(ink: Mask, rules: Mask | None, dpi: int, pieces: Pieces | None = None) -> list[BBox]:
    """The boxes (pixels) of the bars of the page's box sides and comb fields. ``rules``: the
    page's rules (None: none found); ``pieces``: the ink's connected pieces when they were found
    already."""
    margin = max(1, dpi // 100)
    lo, hi = (side * dpi for side in HEIGHT_IN)
    _, stats = pieces if pieces is not None else ink_pieces(ink)
    bars = _bars(stats, lo, hi, dpi)
    near_rules, free = None, ink
    if rules is not None and rules.any():
        kernel = np.ones((2 * margin + 1, 2 * margin + 1), np.uint8)
        near_rules = cv2.dilate(rules.view(np.uint8), kernel).view(bool)
        free = ink & ~near_rules
        # A box's sides are pieces of the ink only once its rules are taken away: looked for in
        # the bands of rows a bar's height about the rules, not over the whole page again.
        known = set(bars)
        for top, bottom in _bands(np.asarray(near_rules.any(axis=1)), int(hi) + margin + 1):
            _, band = ink_pieces(free[top:bottom])
            band[:, cv2.CC_STAT_TOP] += top
            bars += [b for b in _bars(band, lo, hi, dpi) if b not in known]
    clear = max(1, round(CLEAR_IN * dpi))
    sides = _sides(bars, near_rules, free, margin, clear, dpi) if near_rules is not None else set()
    rest = [b for b in bars if b not in sides]
    combs = [
        b
        for row in _rows(rest, max(1.0, BASELINE_IN * dpi))
        for comb in _runs(row)
        if _blank_between(comb, free, margin)
        for b in comb
    ]
    return [b for b in bars if b in sides] + combs


def _bars(stats: np.ndarray, lo: float, hi: float, dpi: int) -> list[BBox]:
    """The thin solid upright pieces among ``stats`` (OpenCV's, the background's first)."""
    x, y, w, h, area = (stats[1:, i] for i in range(5))
    bar = (h >= lo) & (h <= hi) & (w <= MAX_WIDTH_IN * dpi) & (h >= MIN_ASPECT * w) & (area >= MIN_FILL * w * h)
    return [BBox(float(x[i]), float(y[i]), float(x[i] + w[i]), float(y[i] + h[i])) for i in np.flatnonzero(bar)]


def _bands(ruled_rows: np.ndarray, reach: int) -> list[tuple[int, int]]:
    """The runs of rows within ``reach`` of a row holding a rule, as (top, bottom) ranges."""
    bands: list[tuple[int, int]] = []
    for row in np.flatnonzero(ruled_rows):
        top, bottom = max(0, int(row) - reach), min(len(ruled_rows), int(row) + reach + 1)
        if bands and top <= bands[-1][1]:
            bands[-1] = (bands[-1][0], bottom)
        else:
            bands.append((top, bottom))
    return bands


def _sides(bars: Sequence[BBox], near_rules: Mask, free: Mask, margin: int, clear: int, dpi: int) -> set[BBox]:
    """The bars that are boxes' sides: no other ink ``clear`` pixels either side of them (a stem
    of large type whose strokes across were taken for rules, 本's, has its other strokes beside
    it), and rules along both their ends (within ``margin`` pixels), or along one where another
    such bar of their height, the nearest on the same rule, stands ``PAIR_IN`` from them at most
    and as far as a comb's pitch at least (a box's two sides: a lone bracket's stem on a rule above
    its line, "「", has none; two strokes of one Bengali letter hanging from a headline taken for
    a rule, "বা", stand half their height apart)."""
    tolerance, reach = max(1.0, BASELINE_IN * dpi), PAIR_IN * dpi
    both: set[BBox] = set()
    hanging: list[tuple[BBox, bool]] = []  # a bar on one rule, and whether the rule is above it
    for bar in bars:
        x0, x1, top, bottom = int(bar.x0), int(bar.x1), int(bar.y0), int(bar.y1)
        above = bool(near_rules[max(0, top - margin - 1) : top, x0:x1].any())
        below = bool(near_rules[bottom : bottom + margin + 1, x0:x1].any())
        if not (above or below) or (
            free[top:bottom, max(0, x0 - clear) : x0].any() or free[top:bottom, x1 : x1 + clear].any()
        ):
            continue
        if above and below:
            both.add(bar)
        else:
            hanging.append((bar, above))
    paired = set()
    for bar, up in hanging:
        partners = [
            other
            for other, other_up in hanging
            if other is not bar
            and other_up == up
            and abs((bar.y0 if up else bar.y1) - (other.y0 if up else other.y1)) <= tolerance
            and abs(bar.height - other.height) <= SAME_HEIGHT * max(bar.height, other.height)
        ]
        nearest = min((abs(bar.cx - other.cx) for other in partners), default=None)
        if nearest is not None and PITCH[0] * bar.height <= nearest <= reach:
            paired.add(bar)
    return both | paired


def _blank_between(comb: Sequence[BBox], ink: Mask, margin: int) -> bool:
    """Whether the paper between each two bars, over their height, holds no ink (a pixel's
    fringe of the bars aside)."""
    for a, b in itertools.pairwise(comb):
        top, bottom = int(min(a.y0, b.y0)), int(max(a.y1, b.y1))
        if ink[top:bottom, int(a.x1) + margin : int(b.x0) - margin].any():
            return False
    return True


def _rows(bars: list[BBox], tolerance: float) -> list[list[BBox]]:
    """Bars grouped by their bottoms, each within ``tolerance`` of the previous one's, left to right."""
    rows: list[list[BBox]] = []
    for box in sorted(bars, key=lambda b: b.y1):
        if rows and box.y1 - rows[-1][-1].y1 <= tolerance:
            rows[-1].append(box)
        else:
            rows.append([box])
    return [sorted(row, key=lambda b: b.x0) for row in rows if len(row) >= MIN_BARS]


def _runs(row: list[BBox]) -> list[list[BBox]]:
    """The runs of a row's bars of one height at an even pitch."""
    found: list[list[BBox]] = []
    start = 0
    while start < len(row) - 1:
        first = row[start]
        end, pitch = start + 1, row[start + 1].cx - first.cx
        fits = PITCH[0] * first.height <= pitch <= PITCH[1] * first.height
        while (
            fits
            and end < len(row)
            and abs(row[end].height - first.height) <= SAME_HEIGHT * first.height
            and abs(row[end].cx - row[end - 1].cx - pitch) <= PITCH_SLACK * pitch
        ):
            end += 1
        if fits and end - start >= MIN_BARS:
            found.append(row[start:end])
            start = end
        else:
            start += 1
    return found
