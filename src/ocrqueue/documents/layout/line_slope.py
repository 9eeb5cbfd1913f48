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
    x: npt.NDArray[np.float64], rows: npt.NDArray[np.intp], bottoms: npt.NDArray[np.float64], slack: float
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The slope in degrees of the line through the bottoms of a piece's columns ``x`` (``rows``
    the last row of ink, ``bottoms`` the same placed between two rows where the grey crosses the
    threshold), and the columns and bottoms on it. Started from the commonest bottom of each half
    (a half's median fell into the descenders of "Paper"), fitted BASELINE_FITS times to the
    bottoms within ``slack`` of the last fit, so that descenders and the undersides of bars (T, 7)
    are outvoted; None when too few bottoms lie on a line."""
    if x.size < MIN_BASELINE_POINTS:
        return None
    half = x.size // 2
    left, right = _commonest(rows[:half]), _commonest(rows[half:])
    # The halves' middle columns (x is sorted): a median of its own costs more than the whole fit.
    start, end = float(x[half // 2]), float(x[half + (x.size - half) // 2])
    a = (right - left) / max(1.0, end - start)
    b = left - a * start
    for _ in range(BASELINE_FITS):
        keep = np.abs(bottoms - (a * x + b)) <= slack
        if keep.sum() < max(MIN_BASELINE_POINTS, ON_BASELINE * x.size):
            return None
        a, b = _fit(x[keep], bottoms[keep])
    keep = np.abs(bottoms - (a * x + b)) <= slack
    return math.degrees(math.atan(a)), x[keep], bottoms[keep]


def _between_rows(
    gray: npt.NDArray[np.uint8], rows: npt.NDArray[np.intp], columns: npt.NDArray[np.intp], threshold: int
) -> npt.NDArray[np.float64]:
    """Each column's last row of ink moved down to where the grey crosses the threshold on the
    way to the row below it."""
    inside = gray[rows, columns].astype(np.float64)
    below = gray[np.minimum(rows + 1, gray.shape[0] - 1), columns].astype(np.float64)
    crossing: npt.NDArray[np.float64] = rows + np.clip((threshold - inside) / np.maximum(below - inside, 1.0), 0.0, 1.0)
    return crossing


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
    clean Chinese page was turned 0.24 degrees by such pieces); scaled, far fewer do. At full
    resolution each column's bottom is looked for only within a scaled row of its scaled bottom:
    the whole piece scaled up cost three times the rest of the measurement."""
    x, y = at
    height, width = piece.shape
    ink = piece & (small[y : y + height, x : x + width] <= threshold)
    columns = np.flatnonzero(ink.any(axis=0))
    rows = height - 1 - np.argmax(ink[::-1, columns], axis=0)
    scaled = _between_rows(small, y + rows, x + columns, threshold) - y
    if _baseline(columns.astype(np.float64), rows, scaled, BASELINE_SLACK_IN * resolution) is None:
        return None
    fine_columns = ((x + columns)[:, None] * factor + np.arange(factor)).ravel()
    top = np.repeat((y + rows - 1) * factor, factor)
    window = top[None, :] + np.arange(3 * factor)[:, None]
    # Columns stay inside the page (the scaled page is a whole number of factors narrower); the
    # window's rows may run past its top or bottom edge.
    inside = (window >= 0) & (window < gray.shape[0])
    window = np.clip(window, 0, gray.shape[0] - 1)
    fine = inside & (gray[window, fine_columns[None, :]] <= threshold)
    found = fine.any(axis=0)
    last = fine.shape[0] - 1 - np.argmax(fine[::-1], axis=0)
    fine_rows = window[last, np.arange(window.shape[1])][found]
    fine_columns = fine_columns[found]
    bottoms = _between_rows(gray, fine_rows, fine_columns, threshold)
    return _baseline(fine_columns.astype(np.float64), fine_rows, bottoms, BASELINE_SLACK_IN * factor * resolution)


def _fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> tuple[float, float]:
    """Least squares line y = a x + b, in closed form (np.polyfit's lstsq costs ten times more on a
    few hundred points, and a page has hundreds of pieces)."""
    dx = x - x.mean()
    a = float(np.dot(dx, y - y.mean()) / np.dot(dx, dx))
    return a, float(y.mean() - a * x.mean())


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
    """The slope in degrees of the page's line-shaped pieces of ink, in ``straighten.estimate_skew``'s
    sense: their baselines pooled into one fit (``_pooled``) when MIN_LINES of them lie within
    POOL_DEG of the pieces' median slope (weighted by their length), else that median; None when
    the page has fewer than MIN_LINES pieces within ``limit`` degrees."""
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
