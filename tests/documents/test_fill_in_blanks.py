"""Blanks to fill in on a rendered page come back as underscores: a form typed in a word processor
("Place, date: ____________") had its blanks painted out with the rules and lost them. An
underlined word is no blank, nor a rule ending a paragraph in the next column (a three-column
manual's rules became blanks of the lines beside them)."""

from __future__ import annotations

import re

from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from .helpers import png_bytes, run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DPI = 300
BLANKS = re.compile(r"^Place, date: _{10,14} Signature: _{10,14}$")


def _form() -> Image.Image:
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 40)
    draw.text((250, 300), "Application for a library card", font=font, fill=0)
    title_end = 250 + int(draw.textlength("Application for a library card", font=font))
    draw.line((250, 352, title_end, 352), fill=0, width=3)
    draw.text((250, 450), "Please fill in the form below and hand it in at the desk.", font=font, fill=0)
    draw.text((250, 600), "Place, date: ____________ Signature: ____________", font=font, fill=0)
    return image


def test_blanks_to_fill_in_come_back_as_underscores() -> None:
    for data in (png_bytes(_form(), DPI), scan_jpeg(_form(), "blanks-form")):
        lines = [ln.text for b in run(data).pages[0].blocks for ln in b.lines]
        assert any(BLANKS.match(text) for text in lines), lines
        assert "Application for a library card" in lines


def _two_columns() -> Image.Image:
    """A rule under each paragraph of the left column, level with a line of the right one."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 36)
    left = ["Who must file", "Residents of the state", "and their partners."]
    right = [
        "You must attach the form for each",
        "year you were a resident, and show",
        "that the failure to file was due to",
    ]
    y = 300
    for k in range(3):
        for i, (a, b) in enumerate(zip(left, right, strict=True)):
            draw.text((200, y + 50 * i), a, font=font, fill=0)
            draw.text((1000, y + 50 * i), f"{b} {k}." if i == 2 else b, font=font, fill=0)
        draw.line((200, y + 50 * 3 + 36, 940, y + 50 * 3 + 36), fill=0, width=3)
        draw.text((1000, y + 50 * 3), "the reasons given in the letter.", font=font, fill=0)
        y += 300
    return image


def test_a_rule_ending_a_paragraph_beside_another_column_is_no_blank() -> None:
    for data in (png_bytes(_two_columns(), DPI), scan_jpeg(_two_columns(), "blanks-columns")):
        lines = [ln.text for b in run(data).pages[0].blocks for ln in b.lines]
        assert lines and not any("_" in text for text in lines), lines
