"""Pages of text in one script, drawn with Pillow (libraqm shapes Arabic, Devanagari and Thai and
orders right-to-left lines) and the Debian font that has the script's letters."""

from __future__ import annotations

import json
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


def pinned_noto(file: str) -> str:
    """A font file of the Noto package that bench/accuracy/scripts.json pins (the per-script pages
    are printed in it), unpacked into the accuracy cache as the benchmark does; not installed on the
    system, where its Noto Sans would become fontconfig's sans-serif in place of DejaVu Sans."""
    # tests/data on sys.path (tests/documents/conftest.py): scriptpages imports its siblings so.
    from scriptpages import DEFAULT_CACHE, SCRIPTS_MANIFEST, unpack_packages

    fonts = {"fonts-noto-core": json.loads(SCRIPTS_MANIFEST.read_text())["fonts"]["fonts-noto-core"]}
    root = unpack_packages(fonts, DEFAULT_CACHE)["fonts-noto-core"]
    return str(root / "usr/share/fonts/truetype/noto" / file)


def script_page(lines: Sequence[str], script: str, size: int = 30, font_file: str | None = None) -> Image.Image:
    """A page of ``lines`` in ``script``'s font (or ``font_file``), one a line, set from the right
    for right-to-left scripts."""
    path, index = (font_file, 0) if font_file is not None else FONTS[script]
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
