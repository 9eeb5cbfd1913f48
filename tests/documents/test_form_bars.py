"""The bars of a form's boxes on a rendered page (layout/combs.py): comb fields, a box for each
digit of a routing or account number, and the box round a line's number. Once the rules are
painted out their short upright sides were left, and Tesseract read each as "|" and ran the
label into them (dev f1040nr p. 2: "Accountmumber| | | | | | tt tid tt di ti tl", "| 73 | |").
They are painted out too; a line of sans-serif text, whose "l" and "I" are such bars, keeps them."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.layout.combs import find_bars

from .helpers import line_texts, png_bytes

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CELL = 60  # a comb's box, pixels at 300 dpi
TEXT = "Illinois will bill all 11 small hill mills"


def _comb(draw: ImageDraw.ImageDraw, x: int, y: int, boxes: int) -> None:
    """A row of boxes for one digit each, ruled above and below."""
    draw.line((x, y, x + boxes * CELL, y), fill=0, width=3)
    draw.line((x, y + CELL, x + boxes * CELL, y + CELL), fill=0, width=3)
    for k in range(boxes + 1):
        draw.line((x + k * CELL, y, x + k * CELL, y + CELL), fill=0, width=3)


def _form_page() -> Image.Image:
    """A refund section set as the IRS sets it: comb fields for the routing and account numbers,
    line numbers boxed by two bars on the amount column's rule, a date's comb standing free
    (bars only), and a line of sans-serif text full of "l" and "I"."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 34)
    draw.text((300, 300), "Refund", font=ImageFont.truetype(SANS, 64), fill=0)
    draw.text((300, 480), "b Routing number", font=font, fill=0)
    _comb(draw, 760, 465, 9)
    draw.text((300, 600), "d Account number", font=font, fill=0)
    _comb(draw, 760, 585, 17)
    for y, number, label in ((760, "73", "Amount applied to your estimated tax"), (860, "75", "Estimated tax penalty")):
        draw.text((300, y), f"{number} {label}", font=font, fill=0)
        draw.line((1500, y + 55, 2300, y + 55), fill=0, width=3)
        for x in (1560, 1680):
            draw.line((x, y + 5, x, y + 55), fill=0, width=3)
        draw.text((1590, y + 8), number, font=font, fill=0)
    draw.text((300, 1010), "Date of birth", font=font, fill=0)
    for k in range(9):
        draw.line((760 + k * CELL, 1000, 760 + k * CELL, 1050), fill=0, width=3)
    draw.text((300, 1160), TEXT, font=font, fill=0)
    return image


EXPECTED = [
    "Refund",
    "b Routing number",
    "d Account number",
    "73 Amount applied to your estimated tax 73",
    "75 Estimated tax penalty 75",
    "Date of birth",
    TEXT,
]


def test_a_forms_box_sides_are_read_as_nothing() -> None:
    """Before: "b Routing number | | | | |", "73 Amount applied to your estimated tax | 73 |"."""
    lines = line_texts(png_bytes(_form_page(), 300))
    assert not [ln for ln in lines if "|" in ln], lines
    assert " ".join(lines) == " ".join(EXPECTED), lines


def test_a_scanned_forms_box_sides_are_read_as_nothing() -> None:
    lines = line_texts(scan_jpeg(_form_page(), "form-bars"))
    assert not [ln for ln in lines if "|" in ln], lines
    assert " ".join(lines) == " ".join(EXPECTED), lines


def test_a_free_comb_is_found_and_letters_standing_as_bars_are_not() -> None:
    ink = np.asarray(_form_page()) < 128
    bars = find_bars(ink, None, 300)
    assert sorted(round(b.x0) for b in bars if 990 <= b.y0 <= 1010) == [759 + k * CELL for k in range(9)]
    assert not [b for b in bars if b.y0 > 1100], "no letter of the text line is a bar"


def test_a_lone_stem_on_a_rule_and_a_stem_between_strokes_are_no_box_sides() -> None:
    """A bracket's stem under a rule above its line ("「", dev amc-manual-ja) is alone on its rule,
    and the stem of a large glyph whose strokes across were taken for rules (本 in a slide's
    title) has its other strokes beside it, and two strokes of a Bengali letter ("বা") hang from its
    headline taken for a rule half their height apart: none is painted out. Two bars of one height
    on one rule, under an inch apart, with blank paper beside them are a box's sides."""
    ink = np.zeros((600, 1200), dtype=bool)
    rules = np.zeros_like(ink)
    rules[100:103, 50:1150] = True  # a rule above a line of text
    ink[100:103, 50:1150] = True
    ink[103:140, 150:153] = True  # a bracket's stem hanging from it, alone (1.8 in from the box)
    ink[103:140, 700:703] = ink[103:140, 900:903] = True  # a box's two sides, hanging from it
    rules[200:203, 600:1100] = True  # a headline taken for a rule
    ink[203:240, 800:803] = ink[203:240, 815:818] = True  # two strokes of a letter hanging from it
    rules[300:304, 100:400] = rules[360:364, 100:400] = True  # the strokes across of a large glyph
    ink[300:364, 100:400] = rules[300:364, 100:400]
    ink[304:360, 248:252] = True  # its stem between them
    ink[320:350, 230:240] = True  # a stroke beside the stem
    ink |= rules
    bars = find_bars(ink, rules, 300)
    assert sorted(round(b.x0) for b in bars) == [700, 900]
