"""Layout analysis of a rendered page image: deskew, ink mask, ruled tables, text regions.

All work happens on numpy arrays; the page is analysed on a coarse grid of about 50 cells per inch,
which is enough to see gutters and paragraph gaps and keeps this step to a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


def ink_mask(gray: npt.NDArray[np.uint8]) -> Mask:
    """Dark pixels, with the threshold between paper and ink estimated by Otsu's method."""
    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    total = hist.sum()
    levels = np.arange(256)
    w0 = np.cumsum(hist)
    m0 = np.cumsum(hist * levels)
    w1 = total - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (m0[-1] * w0 / total - m0) ** 2 / (w0 * w1)
    if not total or np.isnan(between[:-1]).all():
        return np.zeros(gray.shape, dtype=bool)  # one grey level (a blank page): no split, no ink
    threshold = int(np.nanargmax(between[:-1]))
    return gray <= min(threshold, 200)


def coarse(mask: Mask, factor: int) -> Mask:
    """Downsample by ``factor``: a cell is ink if a quarter of its pixels are; lone cells are dropped
    as scanner speckle."""
    if factor <= 1:
        return mask.copy()
    h, w = mask.shape[0] // factor * factor, mask.shape[1] // factor * factor
    blocks = mask[:h, :w].reshape(h // factor, factor, w // factor, factor).sum(axis=(1, 3))
    cells = blocks >= max(1, factor * factor // 4)
    padded = np.pad(cells, 1)
    neighbours = sum(
        padded[1 + dy : padded.shape[0] - 1 + dy, 1 + dx : padded.shape[1] - 1 + dx]
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if dy or dx
    )
    result: Mask = cells & (np.asarray(neighbours) > 0)
    return result


def estimate_skew(mask: Mask) -> float:
    """Skew angle in degrees by maximising the variance of row profiles (on the coarse mask)."""
    if mask.sum() < 50:
        return 0.0
    image = Image.fromarray(mask.astype(np.uint8) * 255)

    def score(angle: float) -> float:
        rotated = image.rotate(angle, resample=Image.Resampling.NEAREST)
        return float(np.var(np.asarray(rotated).sum(axis=1, dtype=np.float64)))

    coarse_best = max(np.arange(-MAX_SKEW_DEG, MAX_SKEW_DEG + 0.01, 0.5), key=lambda a: score(float(a)))
    fine = np.arange(coarse_best - 0.4, coarse_best + 0.41, 0.1)
    return round(float(max(fine, key=lambda a: score(float(a)))), 2)


def deskew(image: Image.Image, dpi: int) -> tuple[Image.Image, float]:
    """Straighten a scanned page when it is tilted by more than a quarter degree."""
    gray = np.asarray(image.convert("L"))
    factor = max(1, round(dpi / GRID_DPI))
    angle = estimate_skew(coarse(ink_mask(gray), factor))
    if abs(angle) < 0.2:
        return image, 0.0
    # Bilinear: as good as bicubic for OCR at these angles, and under half the time.
    return image.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=(255, 255, 255)), angle


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
    image: Image.Image,
    dpi: int,
    find_table_grids: bool = True,
    detected: list[tuple[IslandKind, tuple[int, int, int, int]]] | None = None,
) -> RasterLayout:
    """Find ruled tables and text regions; ``detected`` adds figures, formulas and unruled tables
    from a layout model. A ruled grid lying inside a detected figure is a chart, not a table."""
    gray = np.asarray(image.convert("L"))
    ink = ink_mask(gray)
    rules = np.zeros_like(ink)
    islands = [Island(kind, box) for kind, box in detected or [] if kind != "table"]
    if find_table_grids:
        h_rules = long_runs(ink, max(8, int(H_RULE_MIN_IN * dpi)), axis=1)
        # A table needs two horizontal rules: without them the vertical pass is not worth its time.
        two_rows = np.count_nonzero(np.diff(h_rules.any(axis=1).astype(np.int8), prepend=0) == 1) >= 2
        v_rules = long_runs(ink, max(8, int(V_RULE_MIN_IN * dpi)), axis=0) if two_rows else np.zeros_like(ink)
        for t in find_tables(h_rules, v_rules, tol=max(3, dpi // 40)):
            box = (t.x0, t.y0, t.x1, t.y1)
            if not any(i.kind == "figure" and _overlap_share(box, i.box) > 0.5 for i in islands):
                islands.append(Island("table", box, t))
        rules = h_rules | v_rules
        # Tables the model sees without a ruled grid (whitespace or booktabs style) keep no grid:
        # their columns are found from word positions after OCR.
        ruled = [i.box for i in islands if i.kind == "table"]
        for kind, box in detected or []:
            if kind == "table" and not any(_overlap_share(box, r) > 0.3 or _overlap_share(r, box) > 0.3 for r in ruled):
                islands.append(Island("table", box))
    factor = max(1, round(dpi / GRID_DPI))
    text_ink = ink & ~rules
    for island in islands:
        x0, y0, x1, y1 = island.box
        text_ink[y0:y1, x0:x1] = False
    text_grid = coarse(text_ink, factor)
    islands = [
        i for i in islands if i.kind != "figure" or _ink_share(coarse(ink, factor), i.box, factor) >= MIN_FIGURE_INK
    ]
    grid = text_grid.copy()
    for island in islands:
        x0, y0, x1, y1 = island.box
        grid[y0 // factor : -(-y1 // factor), x0 // factor : -(-x1 // factor)] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), MARGIN_BAND)
    return _place(leaves, islands, factor, text_grid, rules)


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
