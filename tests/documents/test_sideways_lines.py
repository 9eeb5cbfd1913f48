"""Lines Tesseract's page layout reads turned on their side on an upright page are read again
upright (engines/tesseract.py, ``_sideways_read_upright``): a table's column of row numbers came
back as "CONDUBWNPR" (tabula-py's multicolumn table, a LibreOffice PDF, clean render: CER 0.15)."""

from __future__ import annotations

import re

from generate import DEJAVU, encode
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.engines.base import RecognitionRequest
from ocrqueue.documents.engines.tesseract import TesseractEngine

from .helpers import run

ROWS = 24


def numbered_rows() -> Image.Image:
    """A table without rules at 300 dpi: row numbers 1 to 24 in a narrow column, two columns of
    three-digit numbers beside them."""
    font = ImageFont.truetype(DEJAVU.replace("DejaVuSans", "DejaVuSerif"), 34)
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    for i in range(1, ROWS + 1):
        y = 250 + 58 * (i - 1)
        draw.text((250, y), str(i), font=font, fill=0)
        draw.text((520, y), str(99 + i), font=font, fill=0)
        draw.text((760, y), str(199 + i), font=font, fill=0)
    return image


def test_a_column_of_row_numbers_is_read_upright() -> None:
    read = TesseractEngine().recognize(numbered_rows(), RecognitionRequest(("eng",), "page", 300))
    texts = [ln.text for ln in read.lines]
    assert [t for t in texts if len(t) <= 2] == [str(i) for i in range(1, ROWS + 1)], texts
    assert not any(re.search("[A-Za-z]", t) for t in texts), texts


def test_the_row_numbers_reach_the_document_in_their_rows() -> None:
    (page,) = run(encode(numbered_rows(), "PNG")).pages
    (table,) = [b.table for b in page.blocks if b.table is not None]
    assert table.grid() == [[str(i), str(99 + i), str(199 + i)] for i in range(1, ROWS + 1)]
