"""Layout analysis of a rendered page image: deskew, ink mask, ruled tables, text regions.

All work happens on numpy arrays; the page is analysed on a coarse grid of about 50 cells per inch,
which is enough to see gutters and paragraph gaps and keeps this step to a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.layout.blocks import MARGIN_BAND
from ocrqueue.documents.layout.tables import TableGrid, find_tables, long_runs
from ocrqueue.documents.layout.xycut import Mask, Region, xy_cut_page

GRID_DPI = 50
MIN_GUTTER_IN = 0.2
H_RULE_MIN_IN = 0.5
V_RULE_MIN_IN = 0.2
MAX_SKEW_DEG = 3.0
# White kept around the ink when an engine reads only the content box (content_box).
CONTENT_MARGIN_IN = 0.3
# A detected figure with less ink than this (share of grid cells) is scanner noise or empty paper.
MIN_FIGURE_INK = 0.03


IslandKind = Literal["table", "figure", "formula"]


@dataclass(frozen=True)
class Island:
    """A non-text area placed in the reading order: a ruled table (with its grid), or a figure or
    formula found by the layout model. Boxes are in full-resolution pixels."""

    kind: IslandKind
    box: tuple[int, int, int, int]
    grid: TableGrid | None = None


@dataclass(frozen=True)
class RasterLayout:
    """Text regions in reading order, islands each placed before the text region of the same index
    in ``regions`` (``island_after``; len(regions) means at the end), and the rule pixels."""

    regions: list[tuple[int, int, int, int]]
    islands: list[Island]
    island_after: list[int]
    rules: Mask


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
    return _pool(np.ascontiguousarray(mask[:h, :w]).view(np.uint8) * np.uint8(255), factor)


def _ink_grid(gray: npt.NDArray[np.uint8], threshold: int, factor: int) -> Mask:
    """``coarse(gray <= threshold, factor)``, with the 0/255 ink image made by one OpenCV
    threshold instead of a boolean mask scaled up (half the time of the two steps)."""
    if factor <= 1:
        return gray <= threshold
    h, w = gray.shape[0] // factor * factor, gray.shape[1] // factor * factor
    if h == 0 or w == 0:
        return np.zeros((h // factor, w // factor), dtype=bool)
    _, scaled = cv2.threshold(gray[:h, :w], threshold, 255, cv2.THRESH_BINARY_INV)
    return _pool(np.asarray(scaled, dtype=np.uint8), factor)


def _pool(scaled: npt.NDArray[np.uint8], factor: int) -> Mask:
    """Cells of ``factor`` x ``factor`` pixels of a 0/255 image whose size is a multiple of it."""
    h, w = scaled.shape
    if h == 0 or w == 0:
        return np.zeros((h // factor, w // factor), dtype=bool)
    means = cv2.resize(scaled, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    needed = max(1, factor * factor // 4)
    cells = (means >= (needed - 0.5) * 255 / (factor * factor)).view(np.uint8)
    around = cv2.boxFilter(cells, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    result: Mask = (cells > 0) & (around > 1)
    return result


def estimate_skew(mask: Mask) -> float:
    """Skew angle in degrees that maximises the peaks of the row profile (on the coarse mask): the
    ink cells' coordinates are projected at each angle, no image is rotated."""
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

    coarse_best = max(np.arange(-MAX_SKEW_DEG, MAX_SKEW_DEG + 0.01, 0.5), key=lambda a: score(float(a)))
    fine = np.arange(coarse_best - 0.4, coarse_best + 0.41, 0.1)
    return round(float(max(fine, key=lambda a: score(float(a)))), 2)


class Straightened:
    """A page straightened: grey pixels for recognition and analysis, the ink mask and its coarse
    grid, and the colour image, turned only if a figure crop asks for it.

    A tilted page is turned even when the engine would read it as well tilted: Tesseract then
    runs words of mixed Latin and Chinese lines together ("Thetotalamount").
    """

    def __init__(self, source: Image.Image, gray: npt.NDArray[np.uint8], ink: Mask, grid: Mask, angle: float) -> None:
        self.source, self.gray, self.ink, self.grid, self.angle = source, gray, ink, grid, angle
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
    corners), widened to whole grid cells and clipped to the page's whole cells."""
    height, width = shape[0], shape[1]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    x0, y0, x1, y1 = box
    corners = matrix @ np.array([[x0, x1, x0, x1], [y0, y0, y1, y1], [1, 1, 1, 1]], dtype=np.float64)
    return (
        max(0, int(np.floor(corners[0].min() / factor)) * factor),
        max(0, int(np.floor(corners[1].min() / factor)) * factor),
        min(width // factor * factor, int(np.ceil(corners[0].max() / factor)) * factor),
        min(height // factor * factor, int(np.ceil(corners[1].max() / factor)) * factor),
    )


def deskew(image: Image.Image, dpi: int) -> Straightened:
    """Straighten a scanned page when it is tilted by a fifth of a degree or more.

    Only the part of the page that holds ink (``content_box``: lone specks left out) is turned;
    the rest becomes white paper. Turning costs in proportion to the area turned, and an engine
    reads that part alone anyway."""
    gray = np.asarray(image if image.mode == "L" else image.convert("L"))
    threshold = _ink_threshold(gray)
    factor = max(1, round(dpi / GRID_DPI))
    grid = _ink_grid(gray, threshold, factor)
    angle = estimate_skew(grid)
    box = _ink_box(grid, factor, round(CONTENT_MARGIN_IN * dpi), gray.shape)
    if abs(angle) < 0.2 or box is None:
        return Straightened(image, gray, gray <= threshold, grid, 0.0)
    x0, y0, x1, y1 = _turned_box(box, angle, gray.shape, factor)
    gray = _turn_part(gray, angle, 255, (x0, y0, x1, y1))
    grid = np.zeros_like(grid)
    grid[y0 // factor : y1 // factor, x0 // factor : x1 // factor] = _ink_grid(gray[y0:y1, x0:x1], threshold, factor)
    return Straightened(image, gray, gray <= threshold, grid, angle)


def content_box(page: Straightened, dpi: int) -> tuple[int, int, int, int] | None:
    """The part of the page an engine needs to read: the box around the ink of the coarse grid
    (lone speckle already dropped), widened by CONTENT_MARGIN_IN; None for a page without ink.

    Tesseract's time grows with the area it is given, ink or not (it thresholds, finds
    components and looks for columns over all of it): a letter on the top third of a page read
    40 % faster from this box than from the whole page."""
    return _ink_box(page.grid, max(1, round(dpi / GRID_DPI)), round(CONTENT_MARGIN_IN * dpi), page.gray.shape)


def _ink_box(grid: Mask, factor: int, margin: int, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    rows = np.flatnonzero(grid.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(grid.any(axis=0))
    height, width = shape[0], shape[1]
    return (
        max(0, int(cols[0]) * factor - margin),
        max(0, int(rows[0]) * factor - margin),
        min(width, (int(cols[-1]) + 1) * factor + margin),
        min(height, (int(rows[-1]) + 1) * factor + margin),
    )


@dataclass(frozen=True)
class Rules:
    """The page's ruling lines (pixels) and the table grids they form."""

    mask: Mask
    grids: list[TableGrid]


def find_rules(page: Straightened, dpi: int) -> Rules:
    """Horizontal and vertical rules, and the ruled tables they make up."""
    factor = max(1, round(dpi / GRID_DPI))
    h_rules = _long_runs_near(page, factor, max(8, int(H_RULE_MIN_IN * dpi)), axis=1)
    # A table needs two horizontal rules: without them the vertical pass is not worth its time.
    two_rows = np.count_nonzero(np.diff(h_rules.any(axis=1).astype(np.int8), prepend=0) == 1) >= 2
    if not two_rows:
        return Rules(h_rules, [])
    v_rules = _long_runs_near(page, factor, max(8, int(V_RULE_MIN_IN * dpi)), axis=0)
    return Rules(h_rules | v_rules, find_tables(h_rules, v_rules, tol=max(3, dpi // 40)))


def _long_runs_near(page: Straightened, factor: int, min_len: int, axis: int) -> Mask:
    """``long_runs`` of the page, looked for only in the bands of rows (axis 1) or columns
    (axis 0) where the coarse grid holds a run nearly as long: most of a page has none, and the
    full-resolution pass over the whole page cost more than the rest of the layout analysis."""
    out = np.zeros_like(page.ink)
    near = long_runs(page.grid, max(2, min_len // factor - 2), axis).any(axis=axis)
    padded = np.concatenate(([False], near, [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    for start, end in zip(edges[0::2], edges[1::2], strict=True):
        lo, hi = max(0, (int(start) - 1) * factor), (int(end) + 1) * factor
        if axis == 1:
            out[lo:hi] = long_runs(page.ink[lo:hi], min_len, axis)
        else:
            out[:, lo:hi] = long_runs(page.ink[:, lo:hi], min_len, axis)
    return out


def _ink_share(grid: Mask, box: tuple[int, int, int, int], factor: int) -> float:
    sub = grid[box[1] // factor : -(-box[3] // factor), box[0] // factor : -(-box[2] // factor)]
    return float(sub.mean()) if sub.size else 0.0


def _overlap_share(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Share of ``a``'s area that lies inside ``b``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = max(1, (a[2] - a[0]) * (a[3] - a[1]))
    return w * h / area if w > 0 and h > 0 else 0.0


def analyse(
    page: Straightened,
    rules: Rules | None,
    dpi: int,
    detected: list[tuple[IslandKind, tuple[int, int, int, int]]] | None = None,
) -> RasterLayout:
    """Text regions and islands from the page's ink and its ``rules`` (None: tables are not
    looked for); ``detected`` adds figures, formulas and unruled tables from a layout model. A
    ruled grid lying inside a detected figure is a chart, not a table."""
    islands = [Island(kind, box) for kind, box in detected or [] if kind != "table"]
    rule_mask = rules.mask if rules is not None else np.zeros_like(page.ink)
    if rules is not None:
        for t in rules.grids:
            box = (t.x0, t.y0, t.x1, t.y1)
            if not any(i.kind == "figure" and _overlap_share(box, i.box) > 0.5 for i in islands):
                islands.append(Island("table", box, t))
        # Tables the model sees without a ruled grid (whitespace or booktabs style) keep no grid:
        # their columns are found from word positions after OCR.
        ruled = [i.box for i in islands if i.kind == "table"]
        for kind, box in detected or []:
            if kind == "table" and not any(_overlap_share(box, r) > 0.3 or _overlap_share(r, box) > 0.3 for r in ruled):
                islands.append(Island("table", box))
    factor = max(1, round(dpi / GRID_DPI))
    if islands or rule_mask.any():
        text_ink = page.ink & ~rule_mask
        for island in islands:
            x0, y0, x1, y1 = island.box
            text_ink[y0:y1, x0:x1] = False
        text_grid = coarse(text_ink, factor)
    else:
        text_grid = page.grid  # nothing to take out: the page's own coarse ink
    islands = [i for i in islands if i.kind != "figure" or _ink_share(page.grid, i.box, factor) >= MIN_FIGURE_INK]
    grid = text_grid.copy()
    for island in islands:
        x0, y0, x1, y1 = island.box
        grid[y0 // factor : -(-y1 // factor), x0 // factor : -(-x1 // factor)] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), MARGIN_BAND)
    return _place(leaves, islands, factor, text_grid, rule_mask)


def _place(leaves: list[Region], islands: list[Island], factor: int, text_grid: Mask, rules: Mask) -> RasterLayout:
    """Cut each leaf around the islands inside it, so text above an island reads before it and
    text below after it; a leaf without text of its own is just its islands."""
    regions: list[tuple[int, int, int, int]] = []
    after: dict[int, int] = {}
    for leaf in leaves:
        box = (leaf.x0 * factor, leaf.y0 * factor, leaf.x1 * factor, leaf.y1 * factor)
        inside = sorted(
            (i for i, isl in enumerate(islands) if i not in after and _overlap_share(isl.box, box) > 0.5),
            key=lambda i: islands[i].box[1],
        )
        top = leaf.y0
        for i in inside:
            _add_text(regions, text_grid, Region(leaf.x0, top, leaf.x1, islands[i].box[1] // factor), factor)
            after[i] = len(regions)
            top = max(top, -(-islands[i].box[3] // factor))
        _add_text(regions, text_grid, Region(leaf.x0, top, leaf.x1, leaf.y1), factor)
    order = sorted(range(len(islands)), key=lambda i: (after.get(i, len(regions)), islands[i].box[1]))
    return RasterLayout(regions, [islands[i] for i in order], [after.get(i, len(regions)) for i in order], rules)


def _add_text(regions: list[tuple[int, int, int, int]], grid: Mask, part: Region, factor: int) -> None:
    if part.y1 <= part.y0:
        return
    sub = grid[part.y0 : part.y1, part.x0 : part.x1]
    rows = np.flatnonzero(sub.any(axis=1))
    if rows.size == 0:
        return
    cols = np.flatnonzero(sub.any(axis=0))
    regions.append(
        (
            (part.x0 + int(cols[0])) * factor,
            (part.y0 + int(rows[0])) * factor,
            (part.x0 + int(cols[-1]) + 1) * factor,
            (part.y0 + int(rows[-1]) + 1) * factor,
        )
    )
