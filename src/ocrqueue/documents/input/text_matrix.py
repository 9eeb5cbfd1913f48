"""A character's size as drawn, from its full text matrix rather than its ``Tf`` operand alone.

Quartz (macOS) and Acrobat Distiller set every font at size 1 (``/F1 1 Tf``) and scale the text
with the text matrix (``12 0 0 12 x y Tm``); others scale with the CTM (``2 0 0 2 0 0 cm``).
PDFium's ``FPDFText_GetFontSize`` gives the ``Tf`` operand only, so on such pages every line reads
as size 1 and paragraphs and headings cannot be told apart. ``FPDFText_GetMatrix`` gives the
character's text matrix times the CTM; the size drawn is the ``Tf`` size times that matrix's
vertical scale (the length of the text's "up" vector), which holds for turned and slanted text too.
"""

from __future__ import annotations

import math

import pypdfium2.raw as pdfium_c


class TextMatrices:
    """Asks PDFium for a character's font size and text matrix; one matrix buffer per page."""

    def __init__(self, raw: pdfium_c.FPDF_TEXTPAGE) -> None:
        self.raw = raw
        self.matrix = pdfium_c.FS_MATRIX()

    def size(self, index: int) -> float:
        """The character's size in points as drawn on the page (0 when PDFium knows none)."""
        font_size = float(pdfium_c.FPDFText_GetFontSize(self.raw, index))
        if not pdfium_c.FPDFText_GetMatrix(self.raw, index, self.matrix):
            return font_size
        m = self.matrix
        return round(font_size * math.hypot(m.c, m.d), 2)
