"""Bullets drawn on a rendered page are found in the ink (ocr/raster_bullets.py): Tesseract read
a slide's first disc as "e" and left the other four out, and its five points came back as one
paragraph (a Chromium slide, rendered at 300 dpi: paragraph-boundary F1 0.0)."""

from __future__ import annotations

from generate import DEJAVU, ENGLISH, encode
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.model import Block

from .helpers import run

ITEMS = ENGLISH[:5]


def slide(bullets: bool) -> Image.Image:
    """A 16:9 slide at 300 dpi: a title, then the items, each after a disc when ``bullets``; the
    second item wraps onto a line of its own, as a long point does."""
    image = Image.new("RGB", (3000, 1688), "white")
    draw = ImageDraw.Draw(image)
    draw.text((180, 180), "Invoices", font=ImageFont.truetype(DEJAVU.replace("Sans", "Sans-Bold"), 110), fill="black")
    font = ImageFont.truetype(DEJAVU, 62)
    y = 440
    for k, item in enumerate(ITEMS):
        if bullets:
            draw.ellipse((240, y + 26, 262, y + 48), fill="black")
        words = item.split()
        rows = [" ".join(words[:5]), " ".join(words[5:])] if k == 1 else [item]
        for row in rows:
            draw.text((305, y), row, font=font, fill="black")
            y += 88
    return image


def _blocks(image: Image.Image) -> list[Block]:
    (page,) = run(encode(image, "PNG")).pages
    return list(page.blocks)


def test_drawn_discs_make_a_list_of_their_items() -> None:
    lists = [b for b in _blocks(slide(bullets=True)) if b.type == "list"]
    assert len(lists) == 1, lists
    assert [" ".join(item.split()) for item in lists[0].text.split("\n")] == ITEMS
    assert all(line.words[0].role == "bullet" for line in lists[0].lines if line.text.startswith("•"))


def test_the_same_items_without_discs_are_no_list() -> None:
    assert not [b for b in _blocks(slide(bullets=False)) if b.type == "list"]
