"""A scanned spreadsheet: a borderless grid of short cells (names, regions, right-aligned figures
and a narrow column of percentages), printed and scanned. Tesseract reads each narrow column of
figures as a block of its own, and XY-cut cut the grid into columns and slices of a few rows, so
the page came back read column by column ("North East East West ...", then the figures a few
rows at a time). It is one table, read a row per record (layout/row_grid.py on the engine's
words, ocr/whole_page.py)."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from data.generate import DEJAVU
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from ocrqueue.documents import Block

from .helpers import run

DPI = 300
HEADER = ("Item", "Region", "Units", "Price", "Revenue", "Share")
NAMES = ("Chair", "Desk lamp", "Paper", "Stapler", "Monitor", "Printer ink", "Keyboard", "Cable", "Toner black")
REGIONS = ("North", "South", "East", "West")
# Left edges of the two text columns, right edges of the three columns of figures (pixels).
LEFT = (240, 620)
RIGHT = (900, 1110, 1390, 1560)


def _records() -> list[tuple[str, ...]]:
    rng = random.Random(11)
    return [
        (
            rng.choice(NAMES),
            rng.choice(REGIONS),
            str(units := rng.randint(2, 480)),
            f"{(price := rng.randint(100, 240000) / 100):.2f}",
            f"{units * price:.2f}",
            f"{rng.randint(1, 59)}.{rng.randint(0, 9)}",
        )
        for _ in range(34)
    ]


RECORDS = _records()


def _sheet() -> Image.Image:
    """The grid on an A4 page at 300 dpi in 9 pt DejaVu Sans, a title above it; rows 0.15 in apart."""
    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(DEJAVU, round(9 * DPI / 72))
    draw.text((820, 240), "sheet", font=font, fill=0)
    for r, row in enumerate([HEADER, *RECORDS]):
        y = 330 + r * 46
        for c, cell in enumerate(row):
            if c < len(LEFT):
                draw.text((LEFT[c], y), cell, font=font, fill=0)
            else:
                draw.text((RIGHT[c - len(LEFT)] - draw.textlength(cell, font=font), y), cell, font=font, fill=0)
    return image


def _scan(image: Image.Image, seed: int) -> bytes:
    """An office scan: tilted under a degree, blurred, grey paper, lighter ink, sensor noise, JPEG 70."""
    rng = np.random.default_rng(seed)
    grey = image.rotate(0.8, resample=Image.Resampling.BILINEAR, fillcolor=255)
    grey = grey.filter(ImageFilter.GaussianBlur(radius=0.8))
    pixels = np.asarray(grey, dtype=np.float32) * 0.9 + 14 + rng.normal(0.0, 6.0, (grey.height, grey.width))
    out = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=70, dpi=(DPI, DPI))
    return out.getvalue()


@pytest.fixture(scope="module")
def scan() -> bytes:
    return _scan(_sheet(), seed=5)


# With the layout model (which takes this page for a figure) and without it (geometry alone, as on
# a page where the model sees nothing: XY-cut's columns and slices were what came back).
@pytest.fixture(scope="module", params=[True, False], ids=["model", "geometry"])
def blocks(scan: bytes, request: pytest.FixtureRequest) -> list[Block]:
    return list(run(scan, layout_model=request.param).pages[0].blocks)


def test_a_scanned_borderless_grid_is_one_table(blocks: list[Block]) -> None:
    tables = [b.table for b in blocks if b.table is not None]
    assert len(tables) == 1, [(b.type, b.text[:60]) for b in blocks]
    assert [b.text for b in blocks if b.table is None] == ["sheet"]
    grid = tables[0].grid()
    assert len(grid) == 1 + len(RECORDS) and len(grid[0]) == len(HEADER)
    # One row per record, a column per field: most of each record's cells read exactly where they
    # stand (a scan costs a character here and there: "233." for "233").
    for row, record in zip(grid[1:], RECORDS, strict=True):
        assert sum(cell == want for cell, want in zip(row, record, strict=True)) >= len(record) - 2, (row, record)


def test_a_scanned_borderless_grid_reads_row_by_row(blocks: list[Block]) -> None:
    text = "\n".join(b.text for b in blocks)
    lines = [ln.replace("\t", " ") for ln in text.splitlines()]
    found = sum(any(" ".join(record[:3]) in ln for ln in lines) for record in RECORDS)
    assert found >= 0.9 * len(RECORDS), text
