"""Read a PDF page's own text layer (characters with boxes) into lines and words.

Runs under the PDFium lock (the caller holds it). Character boxes come from PDFium in PDF space
(origin bottom-left); they are turned into top-left points here so both paths share one frame.
"""

from __future__ import annotations

import ctypes
import unicodedata

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.pages import TextLayer
from ocrqueue.documents.pdfframe import PageFrame

_BREAKS = {"\n", "\r"}


def read_text_layer(page: pdfium.PdfPage, frame: PageFrame, char_boxes: bool = False) -> TextLayer:
    textpage = page.get_textpage()
    try:
        lines, chars, bad = _lines(textpage, frame, char_boxes)
    finally:
        textpage.close()
    coverage, boxes = _images(page, frame)
    return TextLayer(tuple(lines), chars, bad, coverage, boxes)


def _is_bad(ch: str) -> bool:
    """Characters that betray a broken font mapping rather than real text."""
    if ch < "\x7f":
        return ch < " " and ch != "\t"
    if ch == "\ufffd":
        return True
    cat = unicodedata.category(ch)
    return cat in ("Co", "Cn", "Cc")


class _LineBuilder:
    """Collects characters into words and words into lines, tracking boxes with plain floats
    (this loop runs once per character, so it avoids allocating per character)."""

    def __init__(self, keep_chars: bool) -> None:
        self.keep_chars = keep_chars
        self.char_boxes: list[BBox] = []
        self.lines: list[Line] = []
        self.words: list[Word] = []
        self.chars: list[str] = []
        self.box = [0.0, 0.0, 0.0, 0.0]
        self.font_size: float | None = None

    def add(self, ch: str, x0: float, y0: float, x1: float, y1: float) -> None:
        box = self.box
        if self.chars:
            box[0], box[1], box[2], box[3] = min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)
        else:
            box[0], box[1], box[2], box[3] = x0, y0, x1, y1
        self.chars.append(ch)
        if self.keep_chars:
            self.char_boxes.append(BBox(x0, y0, x1, y1))

    def end_word(self) -> None:
        if self.chars:
            self.words.append(Word("".join(self.chars), BBox(*self.box), 1.0, tuple(self.char_boxes)))
            self.chars.clear()
            self.char_boxes.clear()

    def end_line(self) -> None:
        self.end_word()
        if self.words:
            words = tuple(self.words)
            box = BBox(
                min(w.bbox.x0 for w in words),
                min(w.bbox.y0 for w in words),
                max(w.bbox.x1 for w in words),
                max(w.bbox.y1 for w in words),
            )
            self.lines.append(Line(" ".join(w.text for w in words), box, 1.0, words, self.font_size))
            self.words.clear()
        self.font_size = None


def _lines(textpage: pdfium.PdfTextPage, frame: PageFrame, char_boxes: bool) -> tuple[list[Line], int, int]:
    n = textpage.count_chars()
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    to_page = frame.box
    get_unicode, get_box = pdfium_c.FPDFText_GetUnicode, pdfium_c.FPDFText_GetCharBox
    out = _LineBuilder(char_boxes)
    visible = bad = 0
    for i in range(n):
        code = get_unicode(textpage, i)
        ch = chr(code) if 0 < code < 0x110000 else "\ufffd"
        if ch in _BREAKS:
            out.end_line()
            continue
        if ch.isspace():
            out.end_word()
            continue
        if not get_box(textpage, i, left, right, bottom, top):
            continue
        visible += 1
        if _is_bad(ch):
            bad += 1
        if out.font_size is None:
            out.font_size = float(pdfium_c.FPDFText_GetFontSize(textpage, i))
        out.add(ch, *to_page(left.value, bottom.value, right.value, top.value))
    out.end_line()
    return out.lines, visible, bad


def _images(page: pdfium.PdfPage, frame: PageFrame) -> tuple[float, tuple[BBox, ...]]:
    """Raster images on the page (top-left point boxes) and the share of the page they cover
    (a scan with a thin text layer is mostly image)."""
    crop = frame.crop
    covered = 0.0
    boxes = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        left, bottom, right, top = obj.get_bounds()
        covered += BBox(left, bottom, right, top).intersection(crop)
        boxes.append(frame.box(left, bottom, right, top))
    return (min(1.0, covered / crop.area) if crop.area > 0 else 0.0), tuple(boxes)
