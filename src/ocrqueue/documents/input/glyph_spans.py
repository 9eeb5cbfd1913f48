"""A letter drawn with its marks as more than one glyph: where it really is, and the space it is not.

Chromium writes a letter and the marks on it ("تّ", "ذُ") as one marked-content span carrying
their text (ActualText), drawn as two glyphs, the mark first. PDFium gives the span's letters to
its first glyph, the mark: their boxes are the mark's (a sliver above or below the line), the
letter's own glyph is given no character at all, and PDFium, measuring from the mark, often puts a
space before the span, which splits the word ("تعذّر" came back as "تع ذّر", "التّغييرات" as "ال
تّغييرات": 20 words of the dev gedit-ar pages). The letter's glyph is the page object drawn right
after the mark's that no character of the text page was given: with its bounds in the letters'
box, a "space" between two words that touch is not one.
"""

# ruff: noqa: RUF002 (Arabic letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

import ctypes
import unicodedata
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.logical_line import Glyph

# Two words of a right-to-left line whose boxes (a span's letters at their full extent) are less
# than this share of the taller's height apart touch: the space PDFium put between them is not
# one. On the dev gedit-ar pages such words were 0.0-0.3 pt apart, words a space apart 2-5 pt
# (lines 8-9 pt tall).
TOUCHING = 0.1
# Glyphs of one span after the first: a letter and its marks.
MOST_GLYPHS_AFTER = 3
_TEXT_OBJECT = 1  # FPDF_PAGEOBJ_TEXT

PdfBox = tuple[float, float, float, float]  # left, bottom, right, top (PDF space)


class GlyphSpans:
    """The page objects of one page, read once when first asked for (a page whose right-to-left
    lines carry marks): their order, and which of them were given characters."""

    def __init__(self, textpage: pdfium.PdfTextPage, count: int) -> None:
        self.textpage = textpage
        self.count = count
        self._order: dict[int | None, int] | None = None
        self._given: set[int | None] = set()

    def rest(self, index: int) -> PdfBox | None:
        """The bounds of the glyphs drawn right after character ``index``'s own that no character
        was given (the rest of its span), None when there are none."""
        raw = pdfium_c.FPDFText_GetTextObject(self.textpage.raw, index)
        if not raw:
            return None
        order = self._load()
        at = order.get(_address(raw))
        if at is None:
            return None
        page, boxes = self.textpage.page.raw, []
        left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
        for k in range(at + 1, min(at + 1 + MOST_GLYPHS_AFTER, pdfium_c.FPDFPage_CountObjects(page))):
            obj = pdfium_c.FPDFPage_GetObject(page, k)
            if pdfium_c.FPDFPageObj_GetType(obj) != _TEXT_OBJECT or _address(obj) in self._given:
                break
            if pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
                boxes.append((left.value, bottom.value, right.value, top.value))
        if not boxes:
            return None
        return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)

    def _load(self) -> dict[int | None, int]:
        if self._order is None:
            page = self.textpage.page.raw
            self._order = {
                _address(pdfium_c.FPDFPage_GetObject(page, k)): k for k in range(pdfium_c.FPDFPage_CountObjects(page))
            }
            get = pdfium_c.FPDFText_GetTextObject
            self._given = {_address(get(self.textpage.raw, i)) for i in range(self.count)}
        return self._order


def _address(obj: Any) -> int | None:  # a ctypes pointer of PDFium's, of any of its types
    return ctypes.cast(obj, ctypes.c_void_p).value


def spans_closed(
    glyphs: Sequence[tuple[Glyph, tuple[float, float]]],
    indices: Sequence[int],
    spans: GlyphSpans,
    to_page: Callable[[float, float, float, float], BBox],
) -> list[tuple[Glyph, tuple[float, float]]]:
    """A right-to-left line's glyphs (with their origins; ``indices`` their characters') with two
    words (in text order) made one when they touch, a span that starts with a mark taken at its
    full extent. The glyphs keep their boxes: a word of a mark alone is joined to its neighbour
    by its narrow box (``logical_line``), and a letter after a letter that does not join it
    (د ذ ر ز و ا) stands as far from it as some words from the word before them."""
    grown: dict[tuple[int, tuple[float, float]], BBox] = {}
    for (glyph, origin), index in zip(glyphs, indices, strict=True):
        if unicodedata.category(glyph.text[:1]) == "Mn" and (glyph.word, origin) not in grown:
            rest = spans.rest(index)
            if rest is not None:
                grown[(glyph.word, origin)] = to_page(*rest)
    if not grown:
        return list(glyphs)
    spanned = {word for word, _ in grown}
    words: dict[int, list[BBox]] = {}
    for glyph, origin in glyphs:
        words.setdefault(glyph.word, []).append(grown.get((glyph.word, origin), glyph.box))
    order = list(words)
    same: dict[int, int] = {}
    for before, after in pairwise(order):
        if (before in spanned or after in spanned) and _touch(union(words[before]), union(words[after])):
            same[after] = same.get(before, before)
    if not same:
        return list(glyphs)
    return [(g._replace(word=same.get(g.word, g.word)), o) for g, o in glyphs]


def _touch(a: BBox, b: BBox) -> bool:
    gap = max(a.x0, b.x0) - min(a.x1, b.x1)
    return gap < TOUCHING * max(a.height, b.height)
