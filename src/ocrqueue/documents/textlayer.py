"""Read a PDF page's own text layer (characters with boxes) into lines and words.

Runs under the PDFium lock (the caller holds it). Character boxes come from PDFium in PDF space
(origin bottom-left); they are turned into top-left points here so both paths share one frame.
"""

from __future__ import annotations

import ctypes
import unicodedata

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.pages import TextLayer

_BREAKS = {"\n", "\r"}


def read_text_layer(page: pdfium.PdfPage, crop: BBox) -> TextLayer:
    textpage = page.get_textpage()
    try:
        lines, chars, bad = _lines(textpage, crop)
    finally:
        textpage.close()
    return TextLayer(tuple(lines), chars, bad, _image_coverage(page, crop))


def _is_bad(ch: str) -> bool:
    """Characters that betray a broken font mapping rather than real text."""
    if ch == "\ufffd":
        return True
    cat = unicodedata.category(ch)
    return cat in ("Co", "Cn") or (cat == "Cc" and ch not in "\t")


def _lines(textpage: pdfium.PdfTextPage, crop: BBox) -> tuple[list[Line], int, int]:
    n = textpage.count_chars()
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    x_off, page_top = crop.x0, crop.y1
    lines: list[Line] = []
    words: list[Word] = []
    word_chars: list[str] = []
    word_boxes: list[BBox] = []
    font_size: float | None = None
    visible = bad = 0

    def end_word() -> None:
        if word_chars:
            words.append(Word("".join(word_chars), union(word_boxes), 1.0))
            word_chars.clear()
            word_boxes.clear()

    def end_line() -> None:
        nonlocal font_size
        end_word()
        if words:
            text = " ".join(w.text for w in words)
            lines.append(Line(text, union(w.bbox for w in words), 1.0, tuple(words), font_size))
            words.clear()
        font_size = None

    for i in range(n):
        code = pdfium_c.FPDFText_GetUnicode(textpage, i)
        ch = chr(code) if 0 < code < 0x110000 else "\ufffd"
        if ch in _BREAKS:
            end_line()
            continue
        if ch.isspace():
            end_word()
            continue
        if not pdfium_c.FPDFText_GetCharBox(textpage, i, left, right, bottom, top):
            continue
        visible += 1
        if _is_bad(ch):
            bad += 1
        if font_size is None:
            font_size = float(pdfium_c.FPDFText_GetFontSize(textpage, i))
        word_chars.append(ch)
        word_boxes.append(BBox(left.value - x_off, page_top - top.value, right.value - x_off, page_top - bottom.value))
    end_line()
    return lines, visible, bad


def _image_coverage(page: pdfium.PdfPage, crop: BBox) -> float:
    """Share of the page area covered by raster images (a scan with a thin text layer is mostly image)."""
    page_area = crop.area
    if page_area <= 0:
        return 0.0
    covered = 0.0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        left, bottom, right, top = obj.get_bounds()
        covered += BBox(left, bottom, right, top).intersection(crop)
    return min(1.0, covered / page_area)
