"""Bullets drawn on a rendered page are found in the ink (ocr/raster_bullets.py): Tesseract read
a slide's first disc as "e" and left the other four out, and its five points came back as one
paragraph (a Chromium slide, rendered at 300 dpi: paragraph-boundary F1 0.0)."""

from __future__ import annotations

import io

from generate import DEJAVU, ENGLISH
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.model import Block

from .helpers import run

ITEMS = ENGLISH[:5]
WIDTH, LINE = 2600, 87  # pixels: the items' column, the distance between lines


def slide(bullets: bool) -> Image.Image:
    """A 16:9 slide at 300 dpi as Chromium prints one: a title, then the items in 27-point DejaVu
    Sans, each after a disc of 22 pixels when ``bullets``, the long ones wrapped."""
    image = Image.new("RGB", (3000, 1688), "white")
    draw = ImageDraw.Draw(image)
    draw.text((180, 180), "Invoices", font=ImageFont.truetype(DEJAVU.replace("Sans", "Sans-Bold"), 110), fill="black")
    font = ImageFont.truetype(DEJAVU, 80)
    y = 440
    for item in ITEMS:
        if bullets:
            draw.ellipse((237, y + 32, 259, y + 54), fill="black")
        row: list[str] = []
        for word in item.split():
            if row and font.getlength(" ".join([*row, word])) > WIDTH:
                draw.text((303, y), " ".join(row), font=font, fill="black")
                y, row = y + LINE, []
            row.append(word)
        draw.text((303, y), " ".join(row), font=font, fill="black")
        y += LINE
    return image


def _blocks(image: Image.Image) -> list[Block]:
    data = io.BytesIO()
    image.save(data, "PNG", dpi=(300, 300))
    (page,) = run(data.getvalue()).pages
    return list(page.blocks)


def test_drawn_discs_make_a_list_of_their_items() -> None:
    lists = [b for b in _blocks(slide(bullets=True)) if b.type == "list"]
    assert len(lists) == 1, lists
    assert [" ".join(item.split()) for item in lists[0].text.split("\n")] == ITEMS
    # The discs the engine left out are shapes, not characters it read: the text has no "•" for them.
    assert any(line.words[0].role == "bullet" for line in lists[0].lines)


def test_the_same_items_without_discs_are_no_list() -> None:
    assert not [b for b in _blocks(slide(bullets=False)) if b.type == "list"]
