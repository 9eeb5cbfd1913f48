"""Footnote and reference markers kept apart from the word they follow ("reference2").

A marker is set smaller and raised, straight after its word; PDFium gives no space there, so
the marker reads as part of the word. It is told by its characters' size (from the text matrix)
and their raised bottoms, and becomes a word of its own with the role "superscript". PDFium also
ends the line after a raised run: the rest of the line is joined back on.
"""

from __future__ import annotations

import ctypes
import statistics

import pypdfium2.raw as pdfium_c

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.input.text_matrix import TextMatrices
from ocrqueue.documents.model import Line, line_text

MAX_SIZE = 0.85  # a marker's size, as a share of its word's
MIN_RAISE = 0.2  # how far a marker's bottom sits above its word's, in its word's size
MAX_JOIN_GAP = 0.6  # sizes: the widest gap after a marker still on the same line


class Superscripts:
    """Finds the raised marker at a word's end; asks PDFium per character only for words whose
    characters PDFium already boxes apart (more than one rectangle: more than one text object)."""

    def __init__(self, raw: pdfium_c.FPDF_TEXTPAGE, sizes: TextMatrices) -> None:
        self.raw = raw
        self.sizes = sizes
        self.box = [ctypes.c_double() for _ in range(4)]

    def marker_length(self, start: int, end: int) -> int:
        """How many characters at the end of the word ``start``..``end`` - 1 are a marker."""
        left, right, bottom, top = self.box
        chars: list[tuple[float, float]] = []  # (size, bottom) per character
        for i in range(start, end):
            if not pdfium_c.FPDFText_GetCharBox(self.raw, i, left, right, bottom, top):
                return 0
            chars.append((self.sizes.size(i), bottom.value))
        word_size = max(size for size, _ in chars)
        if word_size <= 0:
            return 0
        base = statistics.median(b for size, b in chars if size > MAX_SIZE * word_size)
        n = 0
        for size, b in reversed(chars):
            if size > MAX_SIZE * word_size or b < base + MIN_RAISE * word_size:
                break
            n += 1
        return n if n < len(chars) else 0


def join_after_markers(lines: list[Line]) -> list[Line]:
    """Lines joined where PDFium ended one after a marker and the next goes on along the same
    baseline, a word space or so to its right; or where it ended one before a marker set apart
    from the word before it by a space (InDesign's "metastases. 395-397 Best"): the next line
    opens with it, and took its small size for the size of its whole line, which then broke the
    paragraph in two around it. Such a marker stays a word of its own after its space, as set."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.words
            and (_opens_with_marker(prev, line) or (prev.words[-1].role == "superscript" and _goes_on(prev, line)))
        ):
            words = prev.words + line.words
            out[-1] = Line(
                line_text(words), union([prev.bbox, line.bbox]), prev.confidence, words, prev.font_size, prev.monospace
            )
        else:
            out.append(line)
    return out


def _goes_on(prev: Line, line: Line) -> bool:
    size = prev.font_size or prev.bbox.height
    a, b = _body(prev), line.bbox
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    gap = b.x0 - prev.bbox.x1
    return -0.1 * size <= gap <= MAX_JOIN_GAP * size and overlap >= 0.5 * min(a.height, b.height)


def _opens_with_marker(prev: Line, line: Line) -> bool:
    """Whether ``line`` begins, right after ``prev`` on its row, with a marker: set smaller (the
    size of its first character, which the line carries) and no lower at its top than ``prev``'s
    text, the words after it (if any) taller than it."""
    size, marker_size = prev.font_size, line.font_size
    if not size or not marker_size or marker_size > MAX_SIZE * size or not line.words:
        return False
    body, marker = _body(prev), line.words[0].bbox
    overlap = min(body.y1, marker.y1) - max(body.y0, marker.y0)
    gap = marker.x0 - prev.bbox.x1
    rest_taller = all(w.bbox.height > marker.height for w in line.words[1:] if w.role != "superscript")
    return (
        -0.1 * size <= gap <= MAX_JOIN_GAP * size
        and marker.y0 <= body.y0 + MIN_RAISE * size
        and overlap >= 0.5 * marker.height
        and rest_taller
    )


def _body(line: Line) -> BBox:
    """The line's box without its markers."""
    body = [w.bbox for w in line.words if w.role != "superscript"]
    return union(body) if body else line.bbox
