# ruff: noqa: RUF001, RUF002 (Greek letters, and Cyrillic ones read for them, are the point)
"""A table of polytonic Greek in the manner of the dev greek-utf8 manual (texlive-lang-greek):
short cells of capitals and alphas under breathings and accents, which OSD takes for a page upside
down, however sure (ocr/detect.py ``_square_reads_upright_in``). Drawn in DejaVu Serif at 300 dpi."""

from __future__ import annotations

import unicodedata

from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.ocr.detect import look

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
DPI = 300
# Smooth and rough breathing, alone and with grave, acute and circumflex.
MARKS = (
    "\u0313",
    "\u0314",
    "\u0313\u0300",
    "\u0314\u0300",
    "\u0313\u0301",
    "\u0314\u0301",
    "\u0313\u0342",
    "\u0314\u0342",
)


def table_rows() -> list[str]:
    """Rows of cells "Αἀα Αἁα ..." (each vowel under each mark), then the capitals' "Α᾿Αα" cells."""
    rows = []
    for vowel in "αεηιουω":
        cells = [unicodedata.normalize("NFC", f"Α{vowel}{mark}α") for mark in MARKS]
        cells += [unicodedata.normalize("NFC", f"Α{mark}{vowel.upper()}α") for mark in MARKS[:4]]
        rows.append(" ".join(cells))
    return rows


def table_page() -> Image.Image:
    font = ImageFont.truetype(SERIF, 34)
    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(table_rows() * 2):
        draw.text((380, 450 + row * 54), line, font=font, fill=0)
    return image


def test_a_table_of_greek_letters_under_breathings_is_read_upright() -> None:
    """Before: turned 180 degrees (OSD: 180 at 8.8 on its middle, naming Greek; and 0 at 9.4 on
    the page turned), so read upside down, as dev greek-utf8 p. 7 was (F1 0)."""
    first = look(table_page(), DPI, get_engine("tesseract"))
    assert (first.rotation, first.scripts) == (0, ("Greek",))
