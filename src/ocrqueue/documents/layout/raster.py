"""Layout analysis of a rendered page image: deskew, ink mask, ruled tables, text regions.

All work happens on numpy arrays; the page is analysed on a coarse grid of about 50 cells per inch,
which is enough to see gutters and paragraph gaps and keeps this step to a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class RasterLayout:
    """Results in full-resolution pixels; ``regions`` are text regions in reading order, with
    ``tables`` placed among them by the index of the region they follow."""

    regions: list[tuple[int, int, int, int]]
    tables: list[TableGrid]
    table_after: list[int]
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
    threshold = int(np.nanargmax(between[:-1])) if total else 128
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
    return image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=(255, 255, 255)), angle


def analyse(image: Image.Image, dpi: int, find_table_grids: bool = True) -> RasterLayout:
    gray = np.asarray(image.convert("L"))
    ink = ink_mask(gray)
    rules = np.zeros_like(ink)
    tables: list[TableGrid] = []
    if find_table_grids:
        h_rules = long_runs(ink, max(8, int(H_RULE_MIN_IN * dpi)), axis=1)
        v_rules = long_runs(ink, max(8, int(V_RULE_MIN_IN * dpi)), axis=0)
        tables = find_tables(h_rules, v_rules, tol=max(3, dpi // 40))
        rules = h_rules | v_rules
    factor = max(1, round(dpi / GRID_DPI))
    text_ink = ink & ~rules
    for t in tables:
        text_ink[t.y0 : t.y1, t.x0 : t.x1] = False
    grid = coarse(text_ink, factor)
    for t in tables:
        grid[t.y0 // factor : -(-t.y1 // factor), t.x0 // factor : -(-t.x1 // factor)] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), MARGIN_BAND)
    return _place_tables(leaves, tables, factor, image.size, rules)


def _place_tables(
    leaves: list[Region], tables: list[TableGrid], factor: int, size: tuple[int, int], rules: Mask
) -> RasterLayout:
    regions: list[tuple[int, int, int, int]] = []
    table_after: dict[int, int] = {}
    for leaf in leaves:
        box = (leaf.x0 * factor, leaf.y0 * factor, min(size[0], leaf.x1 * factor), min(size[1], leaf.y1 * factor))
        inside = [
            i
            for i, t in enumerate(tables)
            if box[0] <= (t.x0 + t.x1) / 2 <= box[2] and box[1] <= (t.y0 + t.y1) / 2 <= box[3]
        ]
        covered = any(t_covers(tables[i], box) for i in inside)
        if not covered:
            regions.append(box)
        for i in inside:
            table_after.setdefault(i, len(regions))
    ordered = sorted(range(len(tables)), key=lambda i: table_after.get(i, len(regions)))
    return RasterLayout(
        regions, [tables[i] for i in ordered], [table_after.get(i, len(regions)) for i in ordered], rules
    )


def t_covers(table: TableGrid, box: tuple[int, int, int, int]) -> bool:
    """Whether the table takes up (nearly) the whole region, leaving no text beside it."""
    area = max(1, (box[2] - box[0]) * (box[3] - box[1]))
    inter_w = min(table.x1, box[2]) - max(table.x0, box[0])
    inter_h = min(table.y1, box[3]) - max(table.y0, box[1])
    return inter_w > 0 and inter_h > 0 and inter_w * inter_h >= 0.9 * area
