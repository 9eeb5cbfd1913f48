"""A scanned invoice's item table, ruled cell by cell: every number read exact. Read whole,
Tesseract took the column of lone item numbers for a line set top to bottom and read it as junk,
dropped lone quantities and misread amounts it was unsure of; those cells are read again, in one
strip of their ink (ocr/table_cells.py)."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SERIF_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
HEADER = ["No.", "Description", "Quantity", "Unit price"]
ITEMS = [
    ["1", "Paper, white, A4", "12", "970.50"],
    ["2", "Toner", "11", "577.58"],
    ["3", "Folders", "20", "300.59"],
    ["4", "Service and maintenance", "1", "123.80"],
    ["5", "Stapler", "8", "1532.23"],
    ["6", "Envelopes, large", "3", "1011.56"],
    ["7", "Labels", "5", "1627.12"],
    ["8", "Pens", "14", "107.16"],
    ["9", "Delivery to the office", "12", "1670.76"],
]
EDGES = [120, 300, 1500, 1940, 2430]  # the columns' rules, pixels at 300 dpi
ROW_TOP, ROW_HEIGHT = 560, 84


def _rule(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], vertical: bool) -> None:
    """A browser's table border: three pixels of light grey, then four of dark grey."""
    x0, y0, x1, y1 = box
    if vertical:
        draw.rectangle((x0, y0, x0 + 2, y1), fill=168)
        draw.rectangle((x0 + 3, y0, x0 + 6, y1), fill=84)
    else:
        draw.rectangle((x0, y0, x1, y0 + 2), fill=168)
        draw.rectangle((x0, y0 + 3, x1, y0 + 6), fill=84)


def _invoice() -> Image.Image:
    """An invoice at 300 dpi with its items in a table ruled round every cell, as a browser
    prints an HTML table with a border, the item number set close to its cell's left rule."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    body, bold = ImageFont.truetype(SERIF, 38), ImageFont.truetype(SERIF_BOLD, 38)
    draw.text((120, 150), "Invoice 74399", font=ImageFont.truetype(SERIF_BOLD, 72), fill=0)
    draw.text((120, 300), "Date: 06.05.2019", font=body, fill=0)
    draw.text((120, 350), "Customer number: 39077", font=body, fill=0)
    rows = [HEADER, *ITEMS]
    bottom = ROW_TOP + ROW_HEIGHT * len(rows)
    for r in range(len(rows) + 1):
        _rule(draw, (EDGES[0], ROW_TOP + r * ROW_HEIGHT, EDGES[-1] + 6, 0), vertical=False)
    for x in EDGES:
        _rule(draw, (x, ROW_TOP, 0, bottom + 6), vertical=True)
    for r, row in enumerate(rows):
        top = ROW_TOP + r * ROW_HEIGHT
        for x0, x1, text in zip(EDGES, EDGES[1:], row, strict=False):
            if r == 0:
                draw.text(((x0 + x1 - draw.textlength(text, font=bold)) / 2, top + 20), text, font=bold, fill=0)
            else:
                draw.text((x0 + 14, top + 22), text, font=body, fill=0)
    draw.text((120, bottom + 60), "Net total: 69112.46 EUR", font=body, fill=0)
    return image


def test_a_scanned_invoices_item_table_keeps_every_number() -> None:
    blocks = run(scan_jpeg(_invoice(), "invoice-items")).pages[0].blocks
    tables = [b.table.grid() for b in blocks if b.table is not None]
    assert tables == [[HEADER, *ITEMS]]
