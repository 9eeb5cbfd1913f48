"""The slope of a page's text lines, each line measured on its own.

The row-profile search (``straighten.estimate_skew``) scores the whole page at once. On a page
of several columns whose lines do not line up across the gutters (newspapers, magazines), a wrong
angle can line the columns' lines up with each other better than the right angle lines up each
column's own: a clean four-column newspaper page was turned by 1.4 degrees and read straight across
its columns. A line measured alone cannot be fooled so, but its slope is only as precise as the
line is long, and letters lean it (Arabic words, tall at their start and dipping at their end,
slope by 0.15-0.2 degrees; a piece of one capitalised word measured by its moments, by up to a
degree, so a piece is measured by its baseline where it has one, and a spreadsheet's cells are so
short that each one's baseline alone is rounded to a third of a degree, so the baselines are pooled
into one fit); so the profile's angle stands when the lines agree with it, and is looked for again
near the lines' slope when they do not (``straighten.deskew``).
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
BASELINE_SLACK_IN = 0.015
BASELINE_FITS = 3
MIN_BASELINE_POINTS = 8
# Of a piece's columns, the share whose bottoms lie on its baseline, at least; fewer (Chinese and
# Japanese, whose characters end at no common line) and the piece is measured by its second moments.
ON_BASELINE = 0.6
# Baselines pooled into the page's slope lie this close to the pieces' median slope, at most: a
# rule or a word set at an angle has no say.
POOL_DEG = 1.0
# Fewer lines than this (a slide, a receipt, a photo) leave the choice to the profile alone.
MIN_LINES = 5


def _baseline(
    piece: npt.NDArray[np.bool_], gray: npt.NDArray[np.uint8], threshold: int, slack: float
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The slope in degrees of the line through the bottoms of a piece's columns, and the columns
    and bottoms on it: ``piece`` is the piece's ink at full resolution and ``gray`` its pixels with
    one row more below, from which each bottom is placed between two rows where the grey crosses the
    threshold. Started from the commonest bottom of each half (a half's median fell into the
    descenders of "Paper"), fitted BASELINE_FITS times to the bottoms within ``slack`` of the last
    fit, so that descenders and the undersides of bars (T, 7) are outvoted; None when too few
    bottoms lie on a line."""
    columns = np.flatnonzero(piece.any(axis=0))
    if columns.size < MIN_BASELINE_POINTS:
        return None
    rows = piece.shape[0] - 1 - np.argmax(piece[::-1, columns], axis=0)
    inside, below = gray[rows, columns].astype(np.float64), gray[rows + 1, columns].astype(np.float64)
    bottoms = rows + np.clip((threshold - inside) / np.maximum(below - inside, 1.0), 0.0, 1.0)
    x = columns.astype(np.float64)
    half = columns.size // 2
    left, right = _commonest(rows[:half]), _commonest(rows[half:])
    a = (right - left) / max(1.0, float(np.median(x[half:]) - np.median(x[:half])))
    b = left - a * float(np.median(x[:half]))
    for _ in range(BASELINE_FITS):
        keep = np.abs(bottoms - (a * x + b)) <= slack
        if keep.sum() < max(MIN_BASELINE_POINTS, ON_BASELINE * columns.size):
            return None
        a, b = (float(v) for v in np.polyfit(x[keep], bottoms[keep], 1))
    keep = np.abs(bottoms - (a * x + b)) <= slack
    return math.degrees(math.atan(a)), x[keep], bottoms[keep]


def _fine_baseline(
    piece: npt.NDArray[np.bool_],
    at: tuple[int, int],
    gray: npt.NDArray[np.uint8],
    small: npt.NDArray[np.uint8],
    threshold: int,
    factor: int,
    resolution: float,
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """A piece's baseline (``_baseline``) fitted at full resolution, for a piece whose bottoms lie
    on a line on the scaled page. Judged there: at full resolution the bottoms of a line of Chinese,
    each character's lowest stroke, lie as often within the slack of one line as a Latin line's (a
    clean Chinese page was turned 0.24 degrees by such pieces); scaled, far fewer do."""
    x, y = at
    height, width = piece.shape
    below = min(y + height, small.shape[0] - 1)
    scaled = np.vstack([small[y : y + height, x : x + width], small[below, x : x + width]])
    if _baseline(piece & (scaled[:-1] <= threshold), scaled, threshold, BASELINE_SLACK_IN * resolution) is None:
        return None
    crop = gray[y * factor : (y + height) * factor + 1, x * factor : (x + width) * factor]
    if crop.shape[0] < 2:
        return None
    full = np.repeat(np.repeat(piece, factor, axis=0), factor, axis=1)[: crop.shape[0] - 1, : crop.shape[1]]
    return _baseline(full & (crop[:-1] <= threshold), crop, threshold, BASELINE_SLACK_IN * factor * resolution)


def _commonest(rows: npt.NDArray[np.intp]) -> float:
    low = int(rows.min())
    return float(low + np.bincount(rows - low).argmax())


def _pooled(fits: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]) -> float:
    """One slope for many baselines, each with its own height: the sums of their centred products
    pooled, so that each piece's rounding to whole pixels (a third of a degree on a short cell)
    averages out instead of deciding a median."""
    num = sum(float(np.dot(x - x.mean(), y - y.mean())) for x, y in fits)
    den = sum(float(np.dot(x - x.mean(), x - x.mean())) for x, y in fits)
    return math.degrees(math.atan(num / den))


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
    small: npt.NDArray[np.uint8] = (
        gray
        if factor == 1
        else np.asarray(cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    )
    resolution = dpi / factor
    ink = (small <= threshold).view(np.uint8)
    gap = max(1, round(WORD_GAP_IN * resolution))
    joined = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((1, gap), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    lines = np.flatnonzero((w >= MIN_LINE_IN * resolution) & (w >= MIN_ASPECT * h) & (h >= MIN_HEIGHT_IN * resolution))
    slopes, lengths = [], []
    fits: list[tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    for label in lines[lines > 0]:
        x, y = stats[label, cv2.CC_STAT_LEFT], stats[label, cv2.CC_STAT_TOP]
        piece = labels[y : y + h[label], x : x + w[label]] == label
        fit = _fine_baseline(piece, (x, y), gray, small, threshold, factor, resolution)
        if fit is None:
            m = cv2.moments(piece.view(np.uint8), binaryImage=True)
            slope = 0.5 * math.degrees(math.atan2(2 * m["mu11"], m["mu20"] - m["mu02"]))
        else:
            slope = fit[0]
        if abs(slope) <= limit:
            slopes.append(slope)
            lengths.append(float(w[label]))
            if fit is not None:
                fits.append(fit)
    if len(slopes) < MIN_LINES:
        return None
    order = np.argsort(slopes)
    cumulative = np.cumsum(np.asarray(lengths)[order])
    median = float(np.asarray(slopes)[order][np.searchsorted(cumulative, cumulative[-1] / 2)])
    agreeing = [(x, y) for slope, x, y in fits if abs(slope - median) <= POOL_DEG]
    return _pooled(agreeing) if len(agreeing) >= MIN_LINES else median
