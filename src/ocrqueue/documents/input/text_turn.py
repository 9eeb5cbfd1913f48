"""Which way a PDF page's own text runs on the page as shown, and so how far the page must be
turned for it to read upright.

A page shown turned (text drawn upright under a /Rotate of 90, a landscape table drawn sideways
with a turned matrix on a portrait page) is read like a scan lying on its side: turned upright
first, its lines then grouped and ordered as on any page (textlayer/page.py). PDFium gives each
character's angle (clockwise, in the page's unrotated space); a sample of them, with the page's
/Rotate added, says which way most of the text runs.
"""

from __future__ import annotations

import math
from collections import Counter

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

SAMPLE_CHARS = 400  # characters looked at on a page, spread evenly over its text
MAJORITY = 0.5  # share of them that must run the same way for the page to be turned


def text_turn(textpage: pdfium.PdfTextPage, count: int, rotation: int) -> int:
    """The clockwise turn (0, 90, 180, 270) that sets most of the page's text upright, on a page
    shown turned by ``rotation`` (its /Rotate); 0 when no way holds most of it."""
    runs: Counter[int] = Counter()
    for index in range(0, count, max(1, count // SAMPLE_CHARS)):
        code = pdfium_c.FPDFText_GetUnicode(textpage, index)
        angle = pdfium_c.FPDFText_GetCharAngle(textpage, index)
        if angle < 0 or code <= 0x20 or chr(code).isspace():
            continue  # not a character, or one PDFium made up between words and lines (no angle of its own)
        runs[(round(math.degrees(angle) / 90) * 90 + rotation) % 360] += 1
    if not runs:
        return 0
    shown, most = runs.most_common(1)[0]
    return (360 - shown) % 360 if most > MAJORITY * sum(runs.values()) else 0
