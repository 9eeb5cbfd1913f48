"""A manual's example set beside what it prints (layout/xycut.py, issue 22): the code on the left,
its output on the right, each read as a column of its own, not across line by line.

On a rendered page a gutter must run through three bands of rows (a newspaper's justified lines
share gaps between words as wide as a gutter), and output beside code often shares only two: two
lines of output level with the code's last two, or a title in large type two bands high. Pages
drawn here at 200 dpi, the way LaTeX manuals set such examples.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from .helpers import run

DPI = 200
FONTS = "/usr/share/fonts/truetype/dejavu/"
CODE = [
    "The Pythagorean theorem is:",
    "\\begin{equation}",
    "a^2 + b^2 = c^2 \\label{pythagorean}",
    "\\end{equation}",
    "Equation \\eqref{pythagorean} is",
    "called `Gougu theorem' in Chinese.",
]
PROSE = (
    "Displayed formulas are set on a line of their own, and the equation environment numbers them so "
    "that they can be referred to from the text."
)


def _page(beside: list[tuple[int, str, int]]) -> bytes:
    """A paragraph across the page, then the code on the left with ``beside`` on the right: each
    item (code line it is level with, text, size in points)."""
    image = Image.new("L", (int(8.5 * DPI), int(5 * DPI)), 255)
    draw = ImageDraw.Draw(image)
    serif = ImageFont.truetype(FONTS + "DejaVuSerif.ttf", round(10 * DPI / 72))
    mono = ImageFont.truetype(FONTS + "DejaVuSansMono.ttf", round(9 * DPI / 72))
    left, step = DPI, round(14 * DPI / 72)
    words, line, y = PROSE.split(), "", DPI // 2
    for word in words:
        if draw.textlength(f"{line} {word}", font=serif) > 6.5 * DPI:
            draw.text((left, y), line, font=serif, fill=0)
            line, y = word, y + step
        else:
            line = f"{line} {word}".strip()
    draw.text((left, y), line, font=serif, fill=0)
    top = y + 3 * step
    for k, text in enumerate(CODE):
        draw.text((left, top + k * step), text, font=mono, fill=0)
    for row, text, size in beside:
        font = ImageFont.truetype(FONTS + "DejaVuSerif.ttf", round(size * DPI / 72))
        draw.text((int(4.6 * DPI), top + row * step), text, font=font, fill=0)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(DPI, DPI))
    return buffer.getvalue()


def _blocks(data: bytes) -> list[str]:
    return [" ".join(b.text.split()) for b in run(data).pages[0].blocks]


def test_output_level_with_two_lines_of_code_is_a_column_of_its_own() -> None:
    blocks = _blocks(
        _page([(0, "The Pythagorean theorem is:", 10), (4, "Equation (4.1) is called", 10), (5, "Gougu theorem.", 10)])
    )
    assert any("Equation (4.1) is called Gougu theorem." in b for b in blocks), blocks
    assert not any("eqref" in b and "(4.1)" in b for b in blocks), blocks


def test_a_title_two_bands_high_beside_code_is_a_column_of_its_own() -> None:
    blocks = _blocks(_page([(1, "Bibliography", 20), (3, "and notes", 20)]))
    assert any("Bibliography and notes" in b for b in blocks), blocks
    assert not any("begin" in b and "Bibliography" in b for b in blocks), blocks


def test_two_lines_of_code_with_a_comment_each_keep_their_comments() -> None:
    """Two lines' comments share a gap as wide as the output's beside code, but no third line
    reaches into it: the code is not cut from its comments."""
    image = Image.new("L", (int(8.5 * DPI), int(3 * DPI)), 255)
    draw = ImageDraw.Draw(image)
    mono = ImageFont.truetype(FONTS + "DejaVuSansMono.ttf", round(9 * DPI / 72))
    serif = ImageFont.truetype(FONTS + "DejaVuSerif.ttf", round(10 * DPI / 72))
    step = round(14 * DPI / 72)
    draw.text(
        (DPI, DPI // 2), "Successive functions plotted by one command take the next linetype.", font=serif, fill=0
    )
    draw.text((DPI, DPI // 2 + 2 * step), "Examples:", font=serif, fill=0)
    lines = [("plot 'foo', 'bar'", "# two files: linetypes 1, 2"), ("plot sin(x) linetype 4", "# linetype colour 4")]
    for k, (code, comment) in enumerate(lines):
        y = DPI // 2 + (3 + k) * step
        draw.text((int(1.3 * DPI), y), code, font=mono, fill=0)
        draw.text((int(3.6 * DPI), y), comment, font=mono, fill=0)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(DPI, DPI))
    blocks = _blocks(buffer.getvalue())
    assert any("linetype 4" in b and "colour 4" in b for b in blocks), blocks
