"""A page read turned upright, and its boxes on the page as delivered.

A page lying on its side or upside down is turned upright before it is read (ocr/detect.py), since
layout and engines work on upright text. The result gives its boxes on the page as delivered (the
image after its EXIF turn, the PDF page after its /Rotate: what the page image at
/api/v1/tasks/{id}/pages/{n}, hOCR and ALTO show), with ``rotation`` saying how far it was turned
to be read. The searchable PDF turns them back to draw its text along the words.

``rotation`` is the clockwise turn in degrees (0, 90, 180, 270) from the page as delivered to the
page upright; a box is ``[x0, y0, x1, y1]`` in points from the top-left corner of either page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, Table, Word

ROTATIONS = (0, 90, 180, 270)


def turned_size(size: tuple[float, float], rotation: int) -> tuple[float, float]:
    """The (width, height) of a page of ``size`` once turned by ``rotation``."""
    return (size[1], size[0]) if rotation in (90, 270) else size


def to_delivered(box: BBox, rotation: int, upright: tuple[float, float]) -> BBox:
    """``box`` on the upright page of size ``upright`` (width, height), on the page as delivered."""
    width, height = upright
    x0, y0, x1, y1 = box
    if rotation == 90:
        return BBox(y0, width - x1, y1, width - x0)
    if rotation == 180:
        return BBox(width - x1, height - y1, width - x0, height - y0)
    if rotation == 270:
        return BBox(height - y1, x0, height - y0, x1)
    return box


def to_upright(box: BBox, rotation: int, delivered: tuple[float, float]) -> BBox:
    """``box`` on the page as delivered, of size ``delivered`` (width, height), on the upright page."""
    width, height = delivered
    x0, y0, x1, y1 = box
    if rotation == 90:
        return BBox(height - y1, x0, height - y0, x1)
    if rotation == 180:
        return BBox(width - x1, height - y1, width - x0, height - y0)
    if rotation == 270:
        return BBox(y0, width - x1, y1, width - x0)
    return box


def blocks_delivered(blocks: tuple[Block, ...], rotation: int, upright: tuple[float, float]) -> tuple[Block, ...]:
    """Blocks read on the upright page of size ``upright``, with every box on the page as delivered."""
    return _moved(blocks, lambda box: to_delivered(box, rotation, upright)) if rotation else blocks


def blocks_upright(blocks: tuple[Block, ...], rotation: int, delivered: tuple[float, float]) -> tuple[Block, ...]:
    """Blocks whose boxes lie on the page as delivered (of size ``delivered``), on the upright page."""
    return _moved(blocks, lambda box: to_upright(box, rotation, delivered)) if rotation else blocks


def _moved(blocks: tuple[Block, ...], move: Callable[[BBox], BBox]) -> tuple[Block, ...]:
    def word(w: Word) -> Word:
        return replace(w, bbox=move(w.bbox), chars=tuple(move(c) for c in w.chars))

    def line(ln: Line) -> Line:
        return replace(ln, bbox=move(ln.bbox), words=tuple(word(w) for w in ln.words))

    def table(t: Table | None) -> Table | None:
        return None if t is None else replace(t, cells=tuple(replace(c, bbox=move(c.bbox)) for c in t.cells))

    return tuple(
        replace(b, bbox=move(b.bbox), lines=tuple(line(ln) for ln in b.lines), table=table(b.table)) for b in blocks
    )
