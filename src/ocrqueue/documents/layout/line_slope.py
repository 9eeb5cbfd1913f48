"""The slope of a page's text lines, each line measured on its own.

The row-profile search (``straighten.estimate_skew``) scores the whole page at once. On a page
of several columns whose lines do not line up across the gutters (newspapers, magazines), a wrong
angle can line the columns' lines up with each other better than the right angle lines up each
column's own: a clean four-column newspaper page was turned by 1.4 degrees and read straight across
its columns. A line measured alone cannot be fooled so, but its slope is only as precise as the
line is long, and letters lean it (Arabic words, tall at their start and dipping at their end,
slope by 0.15-0.2 degrees; a piece of one capitalised word measured by its moments, by up to a
degree, so a piece is measured by its baseline where it has one); so the profile's angle stands
when the lines agree with it, and is looked for again near the lines' slope when they do not
(``straighten.deskew``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

# Lines are looked for on the page scaled to about this resolution: a text line's ascenders and
# descenders stay apart from the next line's, and a page costs a few milliseconds.
LINE_DPI = 100
# A closing this wide joins a line's words (a word space is 0.05-0.08 in at body sizes).
WORD_GAP_IN = 0.09
# A piece is a line when it is at least this long and this many times as long as it is tall.
MIN_LINE_IN = 0.4
MIN_ASPECT = 5
# Thinner pieces are the steps of a tilted hairline rule, each of them flat whatever the tilt.
MIN_HEIGHT_IN = 0.05
# A piece's slope is its baseline's, fitted to the bottoms of its columns: its second moments lean
# with its capitals and ascenders, by up to a degree on a piece of one capitalised word (a
# receipt's items turned the page 0.3-0.5 degrees).
BASELINE_SLACK_PX = 1.5
BASELINE_FITS = 3
MIN_BASELINE_POINTS = 8
# Of a piece's columns, the share whose bottoms lie on its baseline, at least; fewer (Chinese and
# Japanese, whose characters end at no common line) and the piece is measured by its second moments.
ON_BASELINE = 0.6
# Fewer lines than this (a slide, a receipt, a photo) leave the choice to the profile alone.
MIN_LINES = 5


def _baseline_slope(piece: npt.NDArray[np.bool_]) -> float | None:
    """The slope in degrees of the line through the bottoms of a piece's columns: started from the
    medians of its two halves, fitted BASELINE_FITS times to the bottoms within BASELINE_SLACK_PX
    of the last fit, so that descenders and the undersides of bars (T, 7) are outvoted; None when
    too few bottoms lie on a line."""
    columns = np.flatnonzero(piece.any(axis=0))
    if columns.size < MIN_BASELINE_POINTS:
        return None
    bottoms = (piece.shape[0] - 1 - np.argmax(piece[::-1, columns], axis=0)).astype(np.float64)
    x = columns.astype(np.float64)
    half = columns.size // 2
    left, right = float(np.median(bottoms[:half])), float(np.median(bottoms[half:]))
    a = (right - left) / max(1.0, float(np.median(x[half:]) - np.median(x[:half])))
    b = left - a * float(np.median(x[:half]))
    for _ in range(BASELINE_FITS):
        keep = np.abs(bottoms - (a * x + b)) <= BASELINE_SLACK_PX
        if keep.sum() < max(MIN_BASELINE_POINTS, ON_BASELINE * columns.size):
            return None
        a, b = (float(v) for v in np.polyfit(x[keep], bottoms[keep], 1))
    return math.degrees(math.atan(a))


def line_slope(gray: npt.NDArray[np.uint8], threshold: int, dpi: int, limit: float) -> float | None:
    """The median slope in degrees of the page's line-shaped pieces of ink, weighted by their
    length, in ``straighten.estimate_skew``'s sense; None when the page has fewer than MIN_LINES of
    them within ``limit`` degrees."""
    if threshold < 0:
        return None
    factor = max(1, dpi // LINE_DPI)
    height, width = gray.shape[0] // factor, gray.shape[1] // factor
    if height == 0 or width == 0:
        return None
    small = gray if factor == 1 else cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)
    resolution = dpi / factor
    ink = (small <= threshold).view(np.uint8)
    gap = max(1, round(WORD_GAP_IN * resolution))
    joined = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((1, gap), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    lines = np.flatnonzero((w >= MIN_LINE_IN * resolution) & (w >= MIN_ASPECT * h) & (h >= MIN_HEIGHT_IN * resolution))
    slopes, lengths = [], []
    for label in lines[lines > 0]:
        x, y = stats[label, cv2.CC_STAT_LEFT], stats[label, cv2.CC_STAT_TOP]
        piece = labels[y : y + h[label], x : x + w[label]] == label
        slope = _baseline_slope(piece)
        if slope is None:
            m = cv2.moments(piece.view(np.uint8), binaryImage=True)
            slope = 0.5 * math.degrees(math.atan2(2 * m["mu11"], m["mu20"] - m["mu02"]))
        if abs(slope) <= limit:
            slopes.append(slope)
            lengths.append(float(w[label]))
    if len(slopes) < MIN_LINES:
        return None
    order = np.argsort(slopes)
    cumulative = np.cumsum(np.asarray(lengths)[order])
    return float(np.asarray(slopes)[order][np.searchsorted(cumulative, cumulative[-1] / 2)])
