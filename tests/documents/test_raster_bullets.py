"""Bullets drawn on a rendered page are found in the ink (ocr/raster_bullets.py): Tesseract read
a slide's first disc as "e" and left the other four out, and its five points came back as one
paragraph (a Chromium slide, rendered at 300 dpi: paragraph-boundary F1 0.0)."""

from __future__ import annotations

import io
from unittest.mock import patch

from generate import DEJAVU, ENGLISH
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, Word
from ocrqueue.documents.ocr import raster_bullets
from ocrqueue.documents.ocr.raster_bullets import PAIRS_AT_ONCE

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


_BOX = st.tuples(
    st.integers(0, 60), st.integers(0, 60), st.integers(0, 12), st.integers(0, 12), st.sampled_from([0.0, 0.25, 0.5])
).map(lambda b: BBox(b[0] + b[4], b[1], b[0] + b[2] + b[4], b[1] + b[3]))


@given(st.lists(_BOX, min_size=1, max_size=40), st.lists(_BOX, max_size=60), st.sampled_from([1, 7, PAIRS_AT_ONCE]))
def test_a_mark_is_in_the_words_when_it_overlaps_one_of_their_boxes(
    marks: list[BBox], words: list[BBox], at_once: int
) -> None:
    """Every mark against every word at once, a few marks a pass: as each mark against each word
    one by one (``BBox.intersection``), boxes that only touch, or have no width, overlapping none."""
    with patch.object(raster_bullets, "PAIRS_AT_ONCE", at_once):
        found = raster_bullets._in_words(marks, words)
    assert found == [any(w.intersection(m) > 0 for w in words) for m in marks]


def test_a_disc_read_as_two_marks_is_a_bullet() -> None:
    """A scanned report's disc came back as "¢«"; its item ran into the one above. Two misreads
    on a mark are one bullet; on no mark, or three of them, the word stays."""

    def line(first: str, y: float) -> Line:
        words = (
            Word(first, BBox(100.0, y, 130.0, y + 30.0), 0.4),
            Word("Reports", BBox(150.0, y, 300.0, y + 30.0), 0.95),
        )
        return Line(f"{first} Reports", BBox(100.0, y, 300.0, y + 30.0), 0.9, words)

    discs = [BBox(104.0, y + 4.0, 124.0, y + 24.0) for y in (100.0, 200.0)]
    two, three, bare = raster_bullets.mark_bullets([line("¢«", 100.0), line("¢«»", 200.0), line("¢«", 300.0)], discs)
    assert two.words[0].text == "•"
    assert three.words[0].text == "¢«»"
    assert bare.words[0].text == "¢«"
