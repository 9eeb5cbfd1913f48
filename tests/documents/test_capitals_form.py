"""A form in capitals whose check boxes stand close to their labels: OSD took its capitals for
Cyrillic (scanned) or for Japanese turned by 180 degrees (clean), Tesseract read each frame into
its label ("L]REGULAR"), and the Cyrillic model made "ARMY" of Cyrillic letters. Drawn as a
service-record form is (DD 293's boxes, 6 px before their labels at 300 dpi)."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.ocr.detect import look

from .helpers import png_bytes, run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DPI = 300
ROWS = [
    ("1. BRANCH OF SERVICE", ["ARMY", "NAVY", "AIR FORCE", "MARINE CORPS"]),
    ("2. COMPONENT AT TIME OF SEPARATION", ["REGULAR", "RESERVE", "NATIONAL GUARD"]),
    ("3. TYPE OF DISCHARGE", ["HONORABLE", "GENERAL", "OTHER THAN HONORABLE"]),
    ("4. REASON FOR REVIEW", ["CHARACTER", "NARRATIVE", "REENTRY CODE"]),
]
GAP = 6  # pixels between a box and its label


def _form() -> Image.Image:
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 36)
    y = 300
    for title, options in ROWS:
        draw.text((200, y), title, font=font, fill=0)
        y += 70
        x = 220
        for option in options:
            draw.rectangle((x, y, x + 40, y + 40), outline=0, width=3)
            draw.text((x + 40 + GAP, y + 2), option, font=font, fill=0)
            x += 40 + GAP + int(draw.textlength(option, font=font)) + 90
        y += 110
    return image


def test_a_form_in_capitals_is_not_taken_to_lie_upside_down() -> None:
    assert look(_form(), DPI, get_engine("tesseract")).rotation == 0


def test_a_form_in_capitals_reads_each_box_apart_from_its_label_in_latin() -> None:
    for data in (png_bytes(_form(), DPI), scan_jpeg(_form(), "capitals-form")):
        page = run(data).pages[0]
        assert page.rotation == 0
        assert page.scripts == ("Latin",) and not {"Cyrillic", "Han", "chi_sim"} & set(page.languages)
        lines = [ln.text for b in page.blocks for ln in b.lines]
        for _, options in ROWS:
            assert " ".join(f"☐ {option}" for option in options) in lines
