"""Giving a vision model's plain-text answer positions on the image it read.

Models like GLM-OCR answer with text only. The pipeline needs lines with boxes (reading order,
paragraphs, titles by row height), so the answer's lines are laid onto the rows of ink in the
crop: when the crop has as many ink rows as the answer has lines (after merging the rows with the
smallest gaps), each line gets its row's box; otherwise the lines share the ink area evenly.
Words get slices of their line's box in proportion to their length. Boxes are approximate and
carry no confidence.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Line, Word

_INK = 160  # grey level below which a pixel is ink
_MIN_ROW_PX = 2


def _ink_rows(ink: np.ndarray) -> list[tuple[int, int]]:
    rows = [bool(v) for v in np.asarray(ink.any(axis=1), dtype=bool).ravel()]
    bands: list[tuple[int, int]] = []
    start: int | None = None
    for y, on in enumerate(rows):
        if on and start is None:
            start = y
        elif not on and start is not None:
            bands.append((start, y))
            start = None
    if start is not None:
        bands.append((start, len(rows)))
    return [b for b in bands if b[1] - b[0] >= _MIN_ROW_PX]


def _merge_to(bands: list[tuple[int, int]], count: int) -> list[tuple[int, int]]:
    """Merge neighbouring rows across the smallest gaps until there are `count` (accents, dots of i)."""
    bands = list(bands)
    while len(bands) > count > 0:
        gaps = [bands[i + 1][0] - bands[i][1] for i in range(len(bands) - 1)]
        i = int(np.argmin(gaps))
        bands[i : i + 2] = [(bands[i][0], bands[i + 1][1])]
    return bands


def _words(text: str, box: BBox) -> tuple[Word, ...]:
    parts = text.split()
    if not parts:
        return ()
    total = sum(len(p) for p in parts) + len(parts) - 1
    x, words = box.x0, []
    for part in parts:
        width = box.width * len(part) / max(1, total)
        words.append(Word(part, BBox(x, box.y0, x + width, box.y1)))
        x += width + box.width / max(1, total)
    return tuple(words)


def place_lines(image: Image.Image, texts: list[str]) -> tuple[Line, ...]:
    """Lines with boxes in pixels of `image` for the model's answer lines, top to bottom."""
    if not texts:
        return ()
    ink = np.asarray(image.convert("L")) < _INK
    bands = _ink_rows(ink)
    if ink.any():
        ys, xs = np.nonzero(ink)
        area = BBox(float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
    else:
        area = BBox(0.0, 0.0, float(image.width), float(image.height))
    boxes: list[BBox] = []
    if len(bands) >= len(texts):
        for y0, y1 in _merge_to(bands, len(texts)):
            cols = np.nonzero(ink[y0:y1].any(axis=0))[0]
            boxes.append(BBox(float(cols.min()), float(y0), float(cols.max() + 1), float(y1)))
    else:
        step = area.height / len(texts)
        boxes = [BBox(area.x0, area.y0 + i * step, area.x1, area.y0 + (i + 1) * step) for i in range(len(texts))]
    return tuple(Line(text, box, None, _words(text, box), box.height) for text, box in zip(texts, boxes, strict=True))
