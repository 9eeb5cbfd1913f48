"""Straightening a page of columns whose lines do not line up across the gutters.

The whole page's row profile alone lined up four columns' lines with each other at a wrong angle
(a clean newspaper page turned 1.4 degrees and read straight across its columns); each line's own
slope now says where the profile looks.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from ocrqueue.documents.layout.line_slope import line_slope
from ocrqueue.documents.layout.straighten import _ink_cells, _ink_threshold, deskew, estimate_skew

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
