"""A heading in large type with a parenthesised aside is a heading, not code (issue 22).

"Part B (optional)" set in DejaVu Sans Bold at 1.5 times the body keeps a regular character
pitch by chance; large type is monospace only when it reads as code, and its brackets alone
counted as code's marks, so the heading came back as a fenced code block. Asides after a space
are prose's; a call's brackets ("print(x)") still count (layout/code.py).
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.code import mark_monospace
from ocrqueue.documents.model import Line, Word

from .helpers import png_bytes, run

FONTS = "/usr/share/fonts/truetype/dejavu/"
PROSE = (
    "Inclusion of a covered work in an aggregate does not cause this License to apply to the other "
    "parts of the aggregate, and you may convey a covered work in object code form under the terms "
    "of sections four and five of this License."
)
HEADINGS = ("Question 11 (6 points)", "Part B (optional)", "Summary of results")


def _page() -> bytes:
    """A letter-size page at 300 dpi: each heading in 15-pt bold over two paragraphs in 10 pt."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    body = ImageFont.truetype(FONTS + "DejaVuSans.ttf", 42)
    large = ImageFont.truetype(FONTS + "DejaVuSans-Bold.ttf", 62)
    y = 300
    for heading in HEADINGS:
        draw.text((300, y), heading, font=large, fill=0)
        y += 110
        for _ in range(2):
            line: list[str] = []
            for word in PROSE.split():
                if line and draw.textlength(" ".join([*line, word]), font=body) > 1950:
                    draw.text((300, y), " ".join(line), font=body, fill=0)
                    y += 54
                    line = []
                line.append(word)
            draw.text((300, y), " ".join(line), font=body, fill=0)
            y += 90
    return png_bytes(image.convert("RGB"), 300)


def test_a_large_heading_with_an_aside_is_a_title() -> None:
    """Before: "Part B (optional)" a code block."""
    blocks = run(_page()).pages[0].blocks
    assert not [b.text for b in blocks if b.type == "code"]
    assert [b.text for b in blocks if b.type == "title"] == list(HEADINGS)


def _line(text: str, x0: float, pitch: float, height: float) -> Line:
    words, x = [], x0
    for word in text.split():
        words.append(Word(word, BBox(x, 100.0, x + pitch * len(word), 100.0 + height), 0.95))
        x += pitch * (len(word) + 1)
    return Line(text, BBox(x0, 100.0, x, 100.0 + height), 0.95, tuple(words), height)


def test_large_type_with_a_call_in_it_stays_code() -> None:
    """A call's brackets are code's: only an aside after a space is taken out."""
    (line,) = mark_monospace([_line("print(total) if done", 72.0, 12.0, 20.0)], body=10.0)
    (aside,) = mark_monospace([_line("Part B (optional)", 72.0, 12.0, 20.0)], body=10.0)
    assert line.monospace
    assert not aside.monospace
