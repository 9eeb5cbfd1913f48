"""Boxes in page coordinates: PDF points (1/72 inch), origin at the top-left corner, y grows down."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

PixelBox = tuple[int, int, int, int]  # x0, y0, x1, y1 in a rendered page's pixels


class BBox(NamedTuple):
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    def scaled(self, factor: float) -> BBox:
        return BBox(self.x0 * factor, self.y0 * factor, self.x1 * factor, self.y1 * factor)

    def intersection(self, other: BBox) -> float:
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return w * h if w > 0 and h > 0 else 0.0

    def contains_center_of(self, other: BBox) -> bool:
        return self.x0 <= other.cx <= self.x1 and self.y0 <= other.cy <= self.y1

    def to_list(self) -> list[float]:
        return [round(v, 2) for v in self]


def union(boxes: Iterable[BBox]) -> BBox:
    """Smallest box holding all ``boxes`` (which must not be empty)."""
    items = list(boxes)
    if not items:
        raise ValueError("union of no boxes")
    return BBox(min(b.x0 for b in items), min(b.y0 for b in items), max(b.x1 for b in items), max(b.y1 for b in items))


def fringed(boxes: Iterable[BBox], dpi: int) -> list[PixelBox]:
    """``boxes`` (pixels) widened by a hundredth of an inch each way (a pixel at least), cut at the
    page's top and left: what to paint white so that an engine does not read marks found in the
    ink, a scan's grey fringe round them included."""
    margin = max(1, dpi // 100)
    return [
        (max(0, int(b.x0) - margin), max(0, int(b.y0) - margin), int(b.x1) + margin, int(b.y1) + margin) for b in boxes
    ]


def share_inside(a: PixelBox, b: PixelBox) -> float:
    """Share of ``a``'s area that lies inside ``b`` (an empty ``a`` counts as one pixel)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = max(1, (a[2] - a[0]) * (a[3] - a[1]))
    return w * h / area if w > 0 and h > 0 else 0.0
