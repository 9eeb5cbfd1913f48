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


def _ink_and_threshold(gray: npt.NDArray[np.uint8]) -> tuple[Mask, int]:
    """Dark pixels, with the threshold between paper and ink estimated by Otsu's method on every
    other pixel of every other row: the same threshold within a grey level, for a quarter of the
    time (the histogram is most of Otsu's cost)."""
    low, high, _, _ = cv2.minMaxLoc(gray)
    if low == high:
        return np.zeros(gray.shape, dtype=bool), -1  # one grey level (a blank page): no split, no ink
    sample = np.ascontiguousarray(gray[::2, ::2]) if min(gray.shape) >= 64 else gray
    otsu, _ = cv2.threshold(sample, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = min(int(otsu), 200)
    ink: Mask = gray <= threshold
    return ink, threshold


def coarse(mask: Mask, factor: int) -> Mask:
    """Downsample by ``factor``: a cell is ink if a quarter of its pixels are; lone cells are dropped
    as scanner speckle."""
    if factor <= 1:
        return mask.copy()
    h, w = mask.shape[0] // factor * factor, mask.shape[1] // factor * factor
    if h == 0 or w == 0:
        return np.zeros((h // factor, w // factor), dtype=bool)
    scaled = np.ascontiguousarray(mask[:h, :w]).view(np.uint8) * np.uint8(255)
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
    x = xs - mask.shape[1] / 2
    y = ys - mask.shape[0] / 2

    def score(angle: float) -> float:
        t = np.deg2rad(angle)
        rows = np.round(y * np.cos(t) - x * np.sin(t)).astype(np.int64)
        profile = np.bincount(rows - rows.min())
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
            pixels = _rotate(np.asarray(self.source.convert("RGB")), self.angle, (255, 255, 255))
            self._color = Image.fromarray(pixels)
        return self._color


def _rotate(pixels: npt.NDArray[np.uint8], angle: float, fill: tuple[int, int, int] | int) -> npt.NDArray[np.uint8]:
    """Turn counter-clockwise by ``angle`` degrees about the centre; bilinear, as good as bicubic
    for OCR at these angles, and OpenCV's is ten times faster than Pillow's."""
    height, width = pixels.shape[:2]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    border = fill if isinstance(fill, tuple) else (fill, fill, fill)
    turned = cv2.warpAffine(pixels, turn, (width, height), flags=cv2.INTER_LINEAR, borderValue=border)
    return np.asarray(turned, dtype=np.uint8)


def deskew(image: Image.Image, dpi: int) -> Straightened:
    """Straighten a scanned page when it is tilted by a quarter degree or more."""
    gray = np.asarray(image.convert("L"))
    ink, threshold = _ink_and_threshold(gray)
    factor = max(1, round(dpi / GRID_DPI))
    grid = coarse(ink, factor)
    angle = estimate_skew(grid)
    if abs(angle) < 0.2:
        return Straightened(image, gray, ink, grid, 0.0)
    gray = _rotate(gray, angle, 255)
    ink = gray <= threshold
    return Straightened(image, gray, ink, coarse(ink, factor), angle)


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
