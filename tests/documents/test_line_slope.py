"""Straightening a page of columns whose lines do not line up across the gutters.

The whole page's row profile alone lined up four columns' lines with each other at a wrong angle
(a clean newspaper page turned 1.4 degrees and read straight across its columns); each line's own
slope now says where the profile looks.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.layout.line_slope import line_slope
from ocrqueue.documents.layout.straighten import _ink_cells, _ink_threshold, deskew, estimate_skew

from .test_scanned_grid import _sheet

DPI = 300
LINE_PITCH = 50  # 12 pt at 300 dpi


def _columns(step: int, tilt: float = 0.0) -> Image.Image:
    """Four columns of words drawn as bars, column k's lines ``k * step`` pixels higher than the
    first column's, turned by ``tilt`` degrees (counter-clockwise)."""
    width, height = int(8.5 * DPI), int(11 * DPI)
    pixels = np.full((height, width), 255, np.uint8)
    rng = np.random.default_rng(1)
    column, gutter = int(1.9 * DPI), int(0.2 * DPI)
    for k in range(4):
        left = int(0.5 * DPI) + k * (column + gutter)
        y = int(1.5 * DPI) - k * step
        while y < height - DPI:
            x = left
            while x < left + column:
                word = int(rng.integers(40, 160))
                pixels[y + 8 : y + 30, x : min(x + word, left + column)] = 0
                x += word + 18
            y += LINE_PITCH
    image = Image.fromarray(pixels)
    if tilt:
        image = image.rotate(tilt, resample=Image.Resampling.BILINEAR, fillcolor=255)
    return image


def _profile_alone(image: Image.Image) -> float:
    gray = np.asarray(image)
    return estimate_skew(_ink_cells(gray, _ink_threshold(gray), DPI // 50)[0])


@pytest.mark.parametrize("step", [8, 16, 24, 36])
def test_columns_out_of_step_are_not_turned(step: int) -> None:
    image = _columns(step)
    assert abs(_profile_alone(image)) >= 0.7  # the trap: the profile alone turns the page
    assert abs(deskew(image.convert("RGB"), DPI).angle) <= 0.2


@pytest.mark.parametrize("step", [8, 24])
@pytest.mark.parametrize("tilt", [-1.1, 0.7])
def test_tilted_columns_out_of_step_are_straightened(step: int, tilt: float) -> None:
    assert deskew(_columns(step, tilt).convert("RGB"), DPI).angle == pytest.approx(-tilt, abs=0.25)


def test_lines_give_their_slope_and_a_page_of_few_lines_gives_none() -> None:
    gray = np.asarray(_columns(16, 0.9))
    slope = line_slope(gray, _ink_threshold(gray), DPI, 3.5)
    assert slope == pytest.approx(-0.9, abs=0.15)
    few = np.full((600, 2550), 255, np.uint8)
    few[100:122, 300:900] = 0
    few[300:322, 300:900] = 0
    assert line_slope(few, 128, DPI, 3.5) is None


def test_hairline_steps_do_not_count_as_flat_lines() -> None:
    """A tilted hairline rule breaks into flat steps when the page is scaled down; they are too
    thin to be lines, so a page of such rules has no slope of its own (counted, their median was
    flat)."""
    gray = np.full((1200, 2550), 255, np.uint8)
    for row in range(100, 1100, 60):
        for x in range(200, 2300):
            y = row + int((x - 200) * np.tan(np.radians(0.5)))
            gray[y : y + 2, x] = 0
    assert line_slope(gray, 128, DPI, 3.5) is None


MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
ITEMS = [
    ("Strawberries", "3.20"),
    ("Wholegrain", "2.85"),
    ("Mozzarella", "6.40"),
    ("Tomatoes", "4.10"),
    ("Detergent", "9.95"),
    ("Chocolate", "12.50"),
    ("Sparkling", "3.75"),
    ("Dishwasher", "2.60"),
    ("Blueberries", "1.95"),
    ("Peppermint", "4.30"),
]


def _receipt() -> Image.Image:
    """A till receipt: 9 pt monospace in a column 7 cm wide, one capitalised word an item and its
    price at the right edge."""
    image = Image.new("L", (int(8.27 * DPI), int(11.69 * DPI)), 255)
    draw = ImageDraw.Draw(image)
    font, title = ImageFont.truetype(MONO, 38), ImageFont.truetype(MONO, 70)
    left, right = 240, 240 + int(7 / 2.54 * DPI)
    draw.text((left, 240), "Harbour Market", font=title, fill=0)
    draw.text((left, 380), "2026-11-21 14:07 Till 3", font=font, fill=0)
    y = 480
    for item, price in ITEMS:
        draw.text((left, y), item, font=font, fill=0)
        draw.text((right - draw.textlength(price, font=font), y), price, font=font, fill=0)
        y += 56
    for line in ("Total 51.60", "Card payment", "Thank you for shopping with us"):
        y += 56
        draw.text((left, y), line, font=font, fill=0)
    return image


def test_a_receipt_of_short_capitalised_lines_is_left_straight() -> None:
    """Each line piece's slope is its baseline's: measured by its second moments, a piece of one
    capitalised word leans with its capital by up to a degree, and a receipt of such words was
    turned 0.5 degrees (LibreOffice receipts 0.29-0.44)."""
    gray = np.asarray(_receipt())
    slope = line_slope(gray, _ink_threshold(gray), DPI, 3.0)
    assert slope is not None and abs(slope) < 0.1
    assert deskew(_receipt(), DPI).angle == 0.0


def test_a_slide_of_japanese_lines_is_left_straight() -> None:
    """Japanese characters end at no common line: their pieces are measured by their moments."""
    image = Image.new("L", (3334, 2500), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(CJK, 110)
    lines = [
        "単語の固有表現らしさの測定",
        "ある単語の時系列的な分布の類似度",
        "２社の新聞記事を日付ごとに揃え",
        "各日付における単語のドキュメント頻度",
        "ベクトルを作成する。類似度の計算",
    ]
    for k, text in enumerate(lines):
        draw.text((260, 300 + 330 * k), text, font=font, fill=0)
    assert deskew(image, DPI).angle == 0.0
    tilted = image.rotate(0.8, resample=Image.Resampling.BILINEAR, fillcolor=255)
    assert abs(deskew(tilted, DPI).angle + 0.8) < 0.15


@pytest.mark.parametrize("tilt", [0.5, 0.8, -0.8])
def test_a_sheet_of_short_cells_gives_its_tilt(tilt: float) -> None:
    """A spreadsheet's cells are short: one piece's baseline drops a pixel or less at a small tilt,
    so each piece's slope is rounded to whole pixels (a third of a degree) and their median missed
    a 0.5 degree tilt by 0.35; the pieces' baselines pooled into one fit come within 0.15."""
    tilted = _sheet().rotate(tilt, resample=Image.Resampling.BILINEAR, fillcolor=255)
    gray = np.asarray(tilted)
    slope = line_slope(gray, _ink_threshold(gray), DPI, 3.5)
    assert slope is not None and abs(slope + tilt) < 0.15
