"""Straightening a rendered page: its ink threshold, the coarse ink grid the layout works on,
the skew angle, the turn, and the content box an engine reads.

The grid has about 50 cells per inch (GRID_DPI): enough to see gutters and paragraph gaps, small
enough that each step here takes a millisecond or two.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.layout.line_slope import line_slope
from ocrqueue.documents.layout.xycut import Mask

GRID_DPI = 50
MAX_SKEW_DEG = 3.0
# How far the profile's angle may lie from the lines' own slope, and how far from that slope the
# profile looks again when it lies further. 0.2 while the lines were measured by their moments;
# measured by their baselines they are closer to the true tilt, and at 0.2 the profile's own error
# on a clean page (-0.2 degrees on a dev TeX page) stood.
NEAR_LINES_DEG = 0.1
# White kept around the ink when an engine reads only the content box (_ink_box).
CONTENT_MARGIN_IN = 0.3
# Touched grid cells (any ink) in one piece that an engine reads even where the grid has no ink:
# a hairline or light stroke an eighth of an inch long. Specks of dust on a scan touch one to four cells.
STROKE_MIN_CELLS = 6


def _ink_threshold(gray: npt.NDArray[np.uint8]) -> int:
    """The grey level between paper and ink by Otsu's method on every other pixel of every other
    row: the same threshold within a grey level, for a quarter of the time (the histogram is most
    of Otsu's cost). -1 for a page of one grey level (blank): no split, no ink."""
    low, high, _, _ = cv2.minMaxLoc(gray)
    if low == high:
        return -1
    sample = np.ascontiguousarray(gray[::2, ::2]) if min(gray.shape) >= 64 else gray
    otsu, _ = cv2.threshold(sample, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return min(int(otsu), 200)


def coarse(mask: Mask, factor: int) -> Mask:
    """Downsample by ``factor``: a cell is ink if a quarter of its pixels are; lone cells are dropped
    as scanner speckle."""
    if factor <= 1:
        return mask.copy()
    h, w = mask.shape[0] // factor * factor, mask.shape[1] // factor * factor
    return _pool(np.ascontiguousarray(mask[:h, :w]).view(np.uint8) * np.uint8(255), factor)[0]


def _ink_cells(gray: npt.NDArray[np.uint8], threshold: int, factor: int) -> tuple[Mask, Mask]:
    """``coarse(gray <= threshold, factor)``, and the cells that hold any ink pixel at all, with
    the 0/255 ink image made by one OpenCV threshold instead of a boolean mask scaled up (half
    the time of the two steps)."""
    if factor <= 1:
        ink = gray <= threshold
        return ink, ink.copy()
    h, w = gray.shape[0] // factor * factor, gray.shape[1] // factor * factor
    if h == 0 or w == 0:  # OpenCV gives no image back for an empty one
        return _pool(np.zeros((h, w), dtype=np.uint8), factor)
    _, scaled = cv2.threshold(gray[:h, :w], threshold, 255, cv2.THRESH_BINARY_INV)
    return _pool(np.asarray(scaled, dtype=np.uint8), factor)


def _pool(scaled: npt.NDArray[np.uint8], factor: int) -> tuple[Mask, Mask]:
    """Cells of ``factor`` x ``factor`` pixels of a 0/255 image whose size is a multiple of it:
    the grid (a quarter of the cell is ink, and a neighbour is too) and the touched cells (any
    ink in them)."""
    h, w = scaled.shape
    if h == 0 or w == 0:
        empty = np.zeros((h // factor, w // factor), dtype=bool)
        return empty, empty.copy()
    means = cv2.resize(scaled, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    needed = max(1, factor * factor // 4)
    cells = (means >= (needed - 0.5) * 255 / (factor * factor)).view(np.uint8)
    around = cv2.boxFilter(cells, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    grid: Mask = (cells > 0) & (around > 1)
    touched: Mask = means > 0
    return grid, touched


def estimate_skew(mask: Mask, near: float | None = None) -> float:
    """Skew angle in degrees that maximises the peaks of the row profile (on the coarse mask): the
    ink cells' coordinates are projected at each angle, no image is rotated. Searched over
    MAX_SKEW_DEG either way, or within NEAR_LINES_DEG of ``near``."""
    ys, xs = np.nonzero(mask)
    if ys.size < 50:
        return 0.0
    # Centred, then shifted by a whole number of rows past half the diagonal, plus a half: every
    # projected row is a non-negative bin, and truncation rounds to the nearest row.
    shift = float(np.ceil(np.hypot(*mask.shape) / 2)) + 1.5
    x = xs.astype(np.float32) - mask.shape[1] / 2
    y = ys.astype(np.float32) - mask.shape[0] / 2

    def score(angle: float) -> float:
        t = np.deg2rad(angle)
        rows = (y * np.float32(np.cos(t)) - x * np.float32(np.sin(t)) + np.float32(shift)).astype(np.intp)
        profile = np.bincount(rows)
        return float(np.dot(profile, profile))

    if near is None:
        coarse_best = max(np.arange(-MAX_SKEW_DEG, MAX_SKEW_DEG + 0.01, 0.5), key=lambda a: score(float(a)))
        fine = np.arange(coarse_best - 0.4, coarse_best + 0.41, 0.1)
    else:
        fine = np.arange(near - NEAR_LINES_DEG, near + NEAR_LINES_DEG + 0.01, 0.1)
    return round(float(max(fine, key=lambda a: score(float(a)))), 2)


# The ink's connected pieces (8-connected), as OpenCV gives them: each pixel's label, and each
# label's left, top, width, height and area (label 0 is the paper).
Pieces = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]


def ink_pieces(ink: Mask) -> Pieces:
    """The connected pieces of ``ink`` (``Pieces``)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink.view(np.uint8), connectivity=8)
    return np.asarray(labels, dtype=np.int32), np.asarray(stats, dtype=np.int32)


class Straightened:
    """A page straightened: grey pixels for recognition and analysis, the ink mask, its coarse
    grid and the grid's cells that hold any ink at all (``touched``: a rule a pixel or two thick
    across two rows of cells is in neither row of the grid), the content box (the part of the
    page an engine needs to read, ``_ink_box``; None for a page without ink), and the colour
    image, turned only if a figure crop asks for it.

    A tilted page is turned even when the engine would read it as well tilted: Tesseract then
    runs words of mixed Latin and Chinese lines together ("Thetotalamount").
    """

    def __init__(
        self,
        source: Image.Image,
        gray: npt.NDArray[np.uint8],
        ink: Mask,
        grid: Mask,
        touched: Mask,
        angle: float,
        content: tuple[int, int, int, int] | None,
    ) -> None:
        self.source, self.gray, self.ink, self.grid, self.angle = source, gray, ink, grid, angle
        self.touched = touched
        self.content = content
        self.image = Image.fromarray(gray)
        self._color: Image.Image | None = None if angle else source

    def color(self) -> Image.Image:
        if self._color is None:
            pixels = turn(np.asarray(self.source.convert("RGB")), self.angle, 255)
            self._color = Image.fromarray(pixels)
        return self._color


def turn(pixels: npt.NDArray[np.uint8], angle: float, fill: int) -> npt.NDArray[np.uint8]:
    """Turn counter-clockwise by ``angle`` degrees about the centre; bilinear, as good as bicubic
    for OCR at these angles, and OpenCV's is ten times faster than Pillow's.

    Turning by whole-pixel shears (Paeth) takes a third of the time, but Tesseract read the
    stepped strokes 14 % slower than bilinear ones (docs/documents.md)."""
    height, width = pixels.shape[:2]
    return _turn_part(pixels, angle, fill, (0, 0, width, height))


def _turn_part(
    pixels: npt.NDArray[np.uint8], angle: float, fill: int, part: tuple[int, int, int, int]
) -> npt.NDArray[np.uint8]:
    """``turn``, with only the pixels inside ``part`` (of the turned page) worked out; the rest
    is ``fill``."""
    height, width = pixels.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    x0, y0, x1, y1 = part
    matrix[:, 2] -= (x0, y0)
    border = (fill, fill, fill)
    inside = cv2.warpAffine(pixels, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=border)
    if (x0, y0, x1, y1) == (0, 0, width, height):
        return np.asarray(inside, dtype=np.uint8)
    out = np.full_like(pixels, fill)
    out[y0:y1, x0:x1] = inside
    return out


def _turned_box(
    box: tuple[int, int, int, int], angle: float, shape: tuple[int, ...], factor: int
) -> tuple[int, int, int, int]:
    """Where ``box`` lands when the page is turned by ``angle`` (the box around its turned
    corners), its top-left corner on a grid cell's and clipped to the page."""
    height, width = shape[0], shape[1]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    x0, y0, x1, y1 = box
    corners = matrix @ np.array([[x0, x1, x0, x1], [y0, y0, y1, y1], [1, 1, 1, 1]], dtype=np.float64)
    return (
        max(0, int(np.floor(corners[0].min() / factor)) * factor),
        max(0, int(np.floor(corners[1].min() / factor)) * factor),
        min(width, int(np.ceil(corners[0].max()))),
        min(height, int(np.ceil(corners[1].max()))),
    )


def deskew(image: Image.Image, dpi: int) -> Straightened:
    """Straighten a scanned page when it is tilted by a fifth of a degree or more.

    Only the part of the page the ink reaches (``_ink_box``) is turned, the rest becomes white
    paper, and that part is the content box: turning costs in proportion to the area turned, and
    an engine reads that part alone anyway (Tesseract's time grows with the area it is given, ink
    or not; a letter on the top third of a page read 40 % faster from the box)."""
    gray = np.asarray(image if image.mode == "L" else image.convert("L"))
    threshold = _ink_threshold(gray)
    factor = max(1, round(dpi / GRID_DPI))
    grid, touched = _ink_cells(gray, threshold, factor)
    angle = estimate_skew(grid)
    lines = line_slope(gray, threshold, dpi, MAX_SKEW_DEG + 0.5)
    if lines is not None and abs(angle - lines) > NEAR_LINES_DEG:
        angle = estimate_skew(grid, near=lines)
    box = _ink_box(grid, touched, factor, round(CONTENT_MARGIN_IN * dpi), gray.shape)
    if abs(angle) < 0.2 or box is None:
        return Straightened(image, gray, gray <= threshold, grid, touched, 0.0, box)
    x0, y0, x1, y1 = _turned_box(box, angle, gray.shape, factor)
    gray = _turn_part(gray, angle, 255, (x0, y0, x1, y1))
    part, part_touched = _ink_cells(gray[y0:y1, x0:x1], threshold, factor)
    grid, touched = np.zeros_like(grid), np.zeros_like(touched)
    rows, cols = slice(y0 // factor, y0 // factor + part.shape[0]), slice(x0 // factor, x0 // factor + part.shape[1])
    grid[rows, cols] = part
    touched[rows, cols] = part_touched
    return Straightened(image, gray, gray <= threshold, grid, touched, angle, (x0, y0, x1, y1))


def _ink_box(
    grid: Mask, touched: Mask, factor: int, margin: int, shape: tuple[int, ...]
) -> tuple[int, int, int, int] | None:
    """The box in pixels around the grid's cells and every run of at least STROKE_MIN_CELLS
    touched cells beyond them and their margin, widened by ``margin``: a thin or light stroke the
    grid's quarter rule misses is still read, a speck of dust (one to four cells) is not. Runs are
    looked for only where they would widen the box, since a noisy scan has thousands of specks
    (a pass over all of them cost as much as turning the page). Clipped to the page's pixels, not
    its whole cells: the last rows and columns of a page whose size is not a multiple of
    ``factor`` have no cell of their own."""
    boxes = []
    cells = marked_box(grid)
    if cells is not None:
        boxes.append(cells)
    outside = touched.copy()
    if boxes:
        reach = margin // factor  # touched cells this close to the grid's box are read anyway
        x0, y0, x1, y1 = boxes[0]
        outside[max(0, y0 - reach) : y1 + reach, max(0, x0 - reach) : x1 + reach] = False
    if outside.any():
        _, _, stats, _ = cv2.connectedComponentsWithStats(outside.view(np.uint8), connectivity=8)
        strokes = stats[1:][stats[1:, cv2.CC_STAT_AREA] >= STROKE_MIN_CELLS]
        if len(strokes):
            left, top = strokes[:, cv2.CC_STAT_LEFT], strokes[:, cv2.CC_STAT_TOP]
            right, bottom = left + strokes[:, cv2.CC_STAT_WIDTH], top + strokes[:, cv2.CC_STAT_HEIGHT]
            boxes.append((int(left.min()), int(top.min()), int(right.max()), int(bottom.max())))
    if not boxes:
        return None
    cells = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    return cells_to_pixels(cells, factor, margin, shape)


def marked_box(marks: Mask, min_marks: int = 1) -> tuple[int, int, int, int] | None:
    """The box (in cells of ``marks``) around the rows and the columns that hold at least
    ``min_marks`` marked cells, or None when none does: the one rule for where a page's ink lies.
    The content box counts one, on the grid, which has dropped specks already; the first look
    (ocr/detect.py) counts two, on raw dark pixels sampled before any grid exists, so that one
    dark pixel of noise does not widen the box it crops."""
    rows = np.flatnonzero(np.count_nonzero(marks, axis=1) >= min_marks)
    cols = np.flatnonzero(np.count_nonzero(marks, axis=0) >= min_marks)
    if rows.size == 0 or cols.size == 0:
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def cells_to_pixels(
    cells: tuple[int, int, int, int], factor: int, margin: int, shape: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """A box of ``factor``-pixel cells in pixels, widened by ``margin`` and clipped to a page of
    ``shape`` (rows, columns)."""
    height, width = shape[0], shape[1]
    return (
        max(0, cells[0] * factor - margin),
        max(0, cells[1] * factor - margin),
        min(width, cells[2] * factor + margin),
        min(height, cells[3] * factor + margin),
    )
