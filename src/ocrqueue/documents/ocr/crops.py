"""Crops of a page sent to an engine on their own (a region, a cell, a line), with white around
them: engines read text that touches the edge of their image badly."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from ocrqueue.documents.geometry import PixelBox

PAD_PX = 12


def padded_crop(image: Image.Image, box: PixelBox, blank: Sequence[PixelBox] = ()) -> tuple[Image.Image, int, int]:
    """``box`` and ``PAD_PX`` around it, as far as the page goes, with the areas in ``blank``
    (tables, rules) painted white; and where the crop's top-left corner lies on the page."""
    x0, y0 = max(0, box[0] - PAD_PX), max(0, box[1] - PAD_PX)
    x1, y1 = min(image.width, box[2] + PAD_PX), min(image.height, box[3] + PAD_PX)
    crop = image.crop((x0, y0, x1, y1))
    for b in blank:
        crop.paste("white", (b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0))
    return crop, x0, y0
