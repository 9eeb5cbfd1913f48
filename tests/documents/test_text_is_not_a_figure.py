"""Text is not a figure: without the layout model, a region of a table's caption and the page
number an inch below it, with no drawing in it, is text (it was a figure holding both: dev
amc-latex-guide p. 93)."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from .helpers import A4_AT_300_DPI, png_bytes, run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
CAPTION = "Table 1: French equivalent commands"


def _table_caption_and_page_number() -> Image.Image:
    """A ruled table of three rows at 300 dpi, its caption under it and the page number an inch
    lower, as a LaTeX manual's page holding one table."""
    width, height, _ = A4_AT_300_DPI
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SERIF, 42)
    rows = [("type", "English", "French"), ("command", "namefield", "champnom"), ("option", "digits", "chiffres")]
    x0, y0, x1, row = 700, 1400, 1800, 70
    for r, cells in enumerate(rows):
        draw.line((x0, y0 + r * row, x1, y0 + r * row), fill=0, width=3)
        for c, text in enumerate(cells):
            draw.text((x0 + 20 + c * 370, y0 + r * row + 12), text, font=font, fill=0)
    bottom = y0 + row * len(rows)
    draw.line((x0, bottom, x1, bottom), fill=0, width=3)
    for x in (x0, x0 + 360, x0 + 730, x1):
        draw.line((x, y0, x, bottom), fill=0, width=3)
    draw.text((900, bottom + 80), CAPTION, font=font, fill=0)
    draw.text((1220, bottom + 380), "93", font=font, fill=0)
    return image


def test_a_caption_and_the_page_number_below_it_are_text_without_the_model() -> None:
    blocks = run(png_bytes(_table_caption_and_page_number(), 300), layout_model=False).pages[0].blocks
    assert [b.type for b in blocks] == ["table", "caption", "text"], [(b.type, b.text) for b in blocks]
    assert [b.text for b in blocks[1:]] == [CAPTION, "93"]
