# ruff: noqa: RUF001, RUF002 (Greek letters, and Cyrillic ones read for them, are the point)
"""English prose quoting Greek capitals and polytonic words, in the manner of the dev greek-utf8
manual (texlive-lang-greek) p. 5, which OSD names Cyrillic (ocr/page.py ``_sibling_reread``).
Drawn in DejaVu Serif at 300 dpi."""

from __future__ import annotations

import io

from metrics import tokens
from PIL import Image, ImageDraw, ImageFont

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
DPI = 300

PROSE = (
    "Capital Greek letters have diacritics (except the dialytika) to the left (instead of above)",
    "and drop them in uppercase, e.g. μαΐστρος becomes ΜΑΪΣΤΡΟΣ.",
    "Tonos and dasia on the first vowel of a diphthong (άι, ἅυ, έι) imply a hiatus. A dialytika",
    "must be placed on the second vowel if they are dropped (ΑΪ, ΑΫ, ΕΪ).",
    "Therefore, the diaeresis is missing in the following examples: ἄυλος becomes ΑΥΛΟΣ,",
    "μάινα becomes ΜΑΙΝΑ, κέικ becomes ΚΕΙΚ, ἄυπνία becomes ΑΥΠΝΙΑ.",
    "Characters of the Greek and Coptic Unicode block:",
    "ΆΈΉΊΌΎΏΐΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩΪΫ",
    "άέήίΰαβγδεζηθικλμνξοπρςστυφχψωϊϋόύώ",
    "MakeUppercase:",
    "ΑΕΗΙΫΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΣΤΥΦΧΨΩΪΫΟΥΩ",
    "The lowercase of Σ is the auto-sigma: ΣΣ becomes σς. Add a zero-width non-joiner",
    "or use the noboundary macro to prevent conversion to final sigma: σσ.",
)


def prose_page() -> bytes:
    font = ImageFont.truetype(SERIF, 40)
    image = Image.new("RGB", (2480, 3508), "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(PROSE):
        draw.text((236, 300 + row * 76), line, font=font, fill="black")
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(DPI, DPI))
    return png.getvalue()


def test_english_prose_quoting_polytonic_greek_is_read_with_the_greek_model() -> None:
    """Before: read with ``Cyrillic+Latin`` ("роїстрос becomes МАЇХТРОУХ", "have" as "һауе",
    "to" as "їо"), as dev greek-utf8 p. 5 was."""
    page = run(prose_page()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert "Greek" in page.scripts and "Cyrillic" not in page.scripts, text
    assert "Cyrillic" not in page.languages, text
    words = set(tokens(text))
    assert words >= {"μαΐστρος", "ΜΑΪΣΤΡΟΣ", "ἄυλος", "ΑΥΛΟΣ", "have", "to", "on"}, text
