"""Ink the engine's page reading leaves out beside lines it reads comes back (ocr/lost_ink.py): a
table's column of row numbers, far left of the numbers beside them, that Tesseract drops from row
9 on (as on the dev page tabula-multicolumn p. 1); drawn marks beside read lines (rings, frames,
crosses, ticks) do not come back as words."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.layout.raster import RasterLayout
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.ocr.assemble import OcrPage
from ocrqueue.documents.ocr.lost_ink import _lost_ink, _runs, read_lost_ink

from .helpers import png_bytes, run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DPI = 300
ROWS = 24


def _numbered_table() -> Image.Image:
    """Three columns of numbers without rules, the row's number first: n, 100 + n, 200 + n."""
    image = Image.new("L", (1772, 1883), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SERIF, 40)
    for n in range(1, ROWS + 1):
        y = 250 + round((n - 1) * 57.5)
        for x, value in zip((240, 390, 534), (n, 100 + n, 200 + n), strict=True):
            draw.text((x, y), str(value), font=font, fill=0)
    return image


def test_a_tables_row_numbers_the_page_reading_drops_come_back_in_their_rows() -> None:
    """The numbers 9 to 24 each come back first in their row: the clean page's rows whole, the
    scan's first column (the page reading misreads a few of the scan's other numbers itself)."""
    want = [[str(n), str(100 + n), str(200 + n)] for n in range(1, ROWS + 1)]
    clean = png_bytes(_numbered_table(), DPI)
    for data in (clean, scan_jpeg(_numbered_table(), "lost-row-numbers")):
        blocks = run(data).pages[0].blocks
        rows = [row for b in blocks if b.table is not None for row in b.table.grid()]
        assert [row[0] for row in rows[8:]] == [w[0] for w in want[8:]], [b.text for b in blocks]
        assert len(rows) == ROWS and all(len(row) == 3 for row in rows)
        assert data is not clean or rows == want


def _marks_beside_lines() -> Image.Image:
    """Lines of text, each with a drawn mark a gap to its right: rings, frames, crosses, a
    triangle, ticks, arcs, of 26 to 78 px."""
    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 40)
    for i in range(14):
        y, x, side = 300 + 90 * i, 1400 + 40 * (i % 3), 26 + 4 * i
        draw.text((300, y), f"Line {i} of the text that is read here.", font=font, fill=0)
        match i % 7:
            case 0 | 5:
                draw.ellipse((x, y, x + side, y + side), outline=0, width=3 if i == 0 else 6)
            case 1:
                draw.rectangle((x, y, x + side, y + side), outline=0, width=3)
            case 2:
                draw.line((x, y, x + side, y + side), fill=0, width=4)
                draw.line((x, y + side, x + side, y), fill=0, width=4)
            case 3:
                draw.polygon((x, y, x + side, y + side // 2, x, y + side), fill=0)
            case 4:
                draw.line((x, y + side // 2, x + side // 3, y + side), fill=0, width=5)
                draw.line((x + side // 3, y + side, x + side, y), fill=0, width=5)
            case _:
                draw.arc((x, y, x + side, y + side), 0, 270, fill=0, width=4)
    return image


def test_drawn_marks_beside_read_lines_do_not_come_back_as_words() -> None:
    """The marks the page reading leaves out are read again (there are runs to read) and none is
    kept: a ring read "O", a cross "x", a triangle ">" are no text."""
    engine = TesseractEngine()
    for image in (_marks_beside_lines(), Image.open(io.BytesIO(scan_jpeg(_marks_beside_lines(), "lost-marks")))):
        straight = deskew(image.convert("L"), DPI)
        height, width = straight.gray.shape
        page = OcrPage(0, height * 72 / DPI, straight, None, DPI, DPI / 72, engine, ("eng",))
        lines = engine.recognize(page.image, RecognitionRequest(("eng",), "page", DPI)).lines
        layout = RasterLayout([(0, 0, width, height)], [], [], np.zeros((height, width), bool))
        heights = sorted(ln.bbox.height for ln in lines if ln.text.strip())
        line_height = heights[len(heights) // 2]
        assert _runs(_lost_ink(page, lines, layout, [], line_height), line_height)
        assert read_lost_ink(page, lines, layout, []) == []
