"""A form's guides on a rendered page: rows of dots 12 pt apart that lead the eye from a line's
label to its amount box (the IRS draws them as paths; no text in the layer). Not found, they were
read as letters and periods (dev f1040nr: "Coe ee ee", "........~,", two labels' words
interleaved across them); they are painted out and no word is made of them, while a row of
numbers whose decimal points stand as evenly apart stays as read."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.layout.leaders import find_leaders

from .helpers import line_texts, png_bytes

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LABELS = [
    "8 Wages, salaries, tips",
    "9a Taxable interest",
    "10a Ordinary dividends",
    "11 Taxable refunds and credits",
    "12 Scholarship grants",
    "13 Business income",
    "14 Capital gain",
    "15 Other gains",
]
GUIDE_PITCH = 50  # pixels at 300 dpi: 12 pt
BOX_LEFT = 1900  # where every line's amount box begins


def _form_page() -> Image.Image:
    """A form at 300 dpi set as the IRS sets its 1040: numbered labels 12 pt apart, each with a
    guide of dots on a 12 pt grid from just after its text up to a column of boxed line numbers
    and amount boxes."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 34)
    draw.text((300, 250), "Income", font=ImageFont.truetype(SANS, 64), fill=0)
    y = 400
    for label in LABELS:
        draw.text((300, y), label, font=font, fill=0)
        end = int(draw.textlength(label, font=font)) + 300
        dot = (end + GUIDE_PITCH // 2) // GUIDE_PITCH * GUIDE_PITCH + GUIDE_PITCH // 2
        while dot < BOX_LEFT - 30:
            draw.rectangle((dot, y + 28, dot + 3, y + 31), fill=0)
            dot += GUIDE_PITCH
        draw.rectangle((BOX_LEFT, y - 8, BOX_LEFT + 600, y + GUIDE_PITCH - 8), outline=0, width=2)
        draw.line((BOX_LEFT + 80, y - 8, BOX_LEFT + 80, y + GUIDE_PITCH - 8), fill=0, width=2)
        y += GUIDE_PITCH
    return image


def test_a_forms_guides_are_read_as_nothing() -> None:
    """Before: "9a Taxable interest.", "10a Ordinary dividends .", the guides' first dots kept."""
    lines = line_texts(png_bytes(_form_page(), 300))
    assert [ln for ln in lines if ln != "Income"] == LABELS, lines


def test_a_scanned_forms_guides_are_read_as_nothing() -> None:
    lines = line_texts(scan_jpeg(_form_page(), "form-guides"))
    assert [ln for ln in lines if ln != "Income"] == LABELS, lines


def test_guides_are_found_and_a_row_of_decimal_points_as_far_apart_is_none() -> None:
    ink = np.asarray(_form_page()) < 128
    guides = find_leaders(ink, 300)
    assert len(guides) == len(LABELS)
    assert all(g.guide and abs(g.pitch - GUIDE_PITCH) < 1 for g in guides)
    numbers = Image.new("L", (2550, 400), 255)
    draw = ImageDraw.Draw(numbers)
    font = ImageFont.truetype(SANS, 24)
    for k in range(12):  # "1.5" to "9.5", a decimal point every 12 pt
        draw.text((300 + k * GUIDE_PITCH, 200), f"{k % 9 + 1}.5", font=font, fill=0)
    assert find_leaders(np.asarray(numbers) < 128, 300) == []
