"""Pages of text in one script, drawn with Pillow (libraqm shapes Arabic, Devanagari and Thai and
orders right-to-left lines) and the Debian font that has the script's letters."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
# Script -> (font file, face index); the CJK .ttc holds JP, KR, SC, TC, HK faces in this order.
FONTS: dict[str, tuple[str, int]] = {
    "Latin": (DEJAVU, 0),
    "Vietnamese": (DEJAVU, 0),
    "Cyrillic": (DEJAVU, 0),
    "Greek": (DEJAVU, 0),
    "Armenian": (DEJAVU, 0),
    "Georgian": (DEJAVU, 0),
    "Hebrew": (DEJAVU, 0),
    "Arabic": (DEJAVU, 0),
    "Thai": ("/usr/share/fonts/truetype/tlwg/Garuda.ttf", 0),  # fonts-tlwg-garuda-ttf
    "Lao": ("/usr/share/fonts/truetype/lao/Phetsarath_OT.ttf", 0),  # fonts-lao
    "Devanagari": ("/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", 0),  # fonts-lohit-deva
    "Japanese": (NOTO_CJK, 0),
    "Hangul": (NOTO_CJK, 1),
    "Han": (NOTO_CJK, 2),
}
DPI = 200
PAGE_W, PAGE_H = 1654, 2339  # A4 at 200 dpi
MARGIN = 150
RIGHT_TO_LEFT = frozenset({"Hebrew", "Arabic"})


def script_page(lines: Sequence[str], script: str, size: int = 30) -> Image.Image:
    """A page of ``lines`` in ``script``'s font, one a line, set from the right for right-to-left scripts."""
    path, index = FONTS[script]
    font = ImageFont.truetype(path, size, index=index, layout_engine=ImageFont.Layout.RAQM)
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    draw = ImageDraw.Draw(image)
    y = MARGIN
    for line in lines:
        if script in RIGHT_TO_LEFT:
            draw.text((PAGE_W - MARGIN, y), line, font=font, fill="black", anchor="ra", direction="rtl")
        else:
            draw.text((MARGIN, y), line, font=font, fill="black")
        y += round(size * 2.1)
    return image
