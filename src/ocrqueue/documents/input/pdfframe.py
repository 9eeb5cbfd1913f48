"""From PDF user space (origin bottom-left, page unrotated) to what a reader sees: points from the
top-left corner of the crop box, after the page's /Rotate. Text, image and rule boxes all go
through here so they line up with the rendered page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ocrqueue.documents.geometry import BBox


@dataclass(frozen=True)
class PageFrame:
    crop: BBox  # left, bottom, right, top in PDF space
    rotation: int  # clockwise degrees: 0, 90, 180 or 270

    def point(self, x: float, y: float) -> tuple[float, float]:
        c = self.crop
        if self.rotation == 90:
            return y - c.y0, x - c.x0
        if self.rotation == 180:
            return c.x1 - x, y - c.y0
        if self.rotation == 270:
            return c.y1 - y, c.x1 - x
        return x - c.x0, c.y1 - y

    @property
    def shown(self) -> BBox:
        """The visible page in the frame's own points: what a reader sees and a render covers."""
        c = self.crop
        return BBox(0.0, 0.0, c.width, c.height) if self.rotation in (0, 180) else BBox(0.0, 0.0, c.height, c.width)

    def cut(self, boxes: Iterable[BBox]) -> list[BBox]:
        """The part of each box on the visible page; boxes wholly off it are dropped."""
        v = self.shown
        cut = (BBox(max(b.x0, v.x0), max(b.y0, v.y0), min(b.x1, v.x1), min(b.y1, v.y1)) for b in boxes)
        return [b for b in cut if b.x1 >= b.x0 and b.y1 >= b.y0]  # a hairline rule has no height

    def box(self, left: float, bottom: float, right: float, top: float) -> BBox:
        ax, ay = self.point(left, bottom)
        bx, by = self.point(right, top)
        return BBox(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))

    def to_user_space_operator(self) -> bytes:
        """A `cm` operator from the displayed page (points, origin bottom-left, y up) to PDF user
        space: the inverse of `point` with y turned upward, for drawing onto the original page."""
        c = self.crop
        matrix = {
            90: (0, 1, -1, 0, c.x1, c.y0),
            180: (-1, 0, 0, -1, c.x1, c.y1),
            270: (0, -1, 1, 0, c.x0, c.y1),
        }.get(self.rotation, (1, 0, 0, 1, c.x0, c.y0))
        return (" ".join(f"{v:.4f}".rstrip("0").rstrip(".") for v in matrix) + " cm\n").encode("ascii")
