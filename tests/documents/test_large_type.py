"""Sparse pages in large type: word gaps scale with the type, so the spaces between big words are
never taken for column gutters; EXIF orientation is honoured."""

from __future__ import annotations

from io import BytesIO

from generate import RECEIPT_LINES, receipt_photo
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from .helpers import run


def test_receipt_photo_reads_line_by_line_upright() -> None:
    page = run(receipt_photo()).pages[0]
    assert page.width > page.height  # shown as EXIF orientation 6 says, not as stored
    lines = [ln.text for b in page.blocks for ln in b.lines]
    assert lines == RECEIPT_LINES
    assert len(page.blocks) <= 2
    assert " ".join(b.text for b in page.blocks) == " ".join(RECEIPT_LINES)


SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


def _png(image: Image.Image) -> bytes:
    out = BytesIO()
    image.save(out, format="PNG", dpi=(300, 300))
    return out.getvalue()


def _write_rows(
    draw: ImageDraw.ImageDraw,
    rows: list[tuple[str, ...]],
    xs: tuple[int, ...],
    top: int,
    height: int,
    font: ImageFont.FreeTypeFont,
) -> None:
    """Each row's cells written a little inside the cells whose left edges are ``xs``."""
    for r, row in enumerate(rows):
        for x, cell in zip(xs, row, strict=False):
            draw.text((x + 20, top + r * height + 18), cell, font=font, fill=0)


def _invoice_page() -> bytes:
    """An invoice's head at 300 dpi: a 23-point bold serif title over a ruled table."""
    image = Image.new("L", (2480, 1200), 255)
    draw = ImageDraw.Draw(image)
    title = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", 96)
    body = ImageFont.truetype(SERIF, 42)
    draw.text((150, 200), "Invoice 26961", font=title, fill=0)
    draw.text((150, 360), "Date: 23.04.2018", font=body, fill=0)
    rows = [("No.", "Description", "Quantity"), ("1", "Consulting hours", "17"), ("2", "Travel costs", "4")]
    xs, top, height = (150, 450, 1500, 2300), 500, 90
    for r in range(len(rows) + 1):
        draw.line((xs[0], top + r * height, xs[-1], top + r * height), fill=0, width=4)
    for x in xs:
        draw.line((x, top, x, top + len(rows) * height), fill=0, width=4)
    _write_rows(draw, rows, xs, top, height, body)
    return _png(image)


def test_a_large_bold_title_over_a_ruled_table_keeps_its_stems() -> None:
    """The stems of large bold type run as long as the shortest vertical rule; painted out with
    the table's rules, "Invoice 26961" was read "Nvoice 2(0(5°."."""
    page = run(_invoice_page(), engine="tesseract", languages=["eng"]).pages[0]
    assert page.blocks[0].text == "Invoice 26961"
    table = next(b for b in page.blocks if b.table is not None)
    assert table.table is not None and table.table.grid()[1][1:] == ["Consulting hours", "17"]


def _faint_rules_table(grey: int = 205) -> bytes:
    """A ruled table as LibreOffice exports it, rendered at 300 dpi: a dark frame and column rules,
    the rules between rows grey hairlines that fall across two rows of pixels."""
    image = Image.new("L", (2480, 1000), 255)
    draw = ImageDraw.Draw(image)
    body = ImageFont.truetype(SERIF, 38)
    rows = [("No.", "Description", "Quantity")] + [(str(k), f"Item number {k}", str(3 * k)) for k in range(1, 7)]
    xs, top, height = (150, 450, 1500, 2300), 100, 80
    bottom = top + len(rows) * height
    draw.rectangle((xs[0], top, xs[-1], bottom), outline=0, width=3)
    for x in xs[1:-1]:
        draw.line((x, top, x, bottom), fill=0, width=3)
    for r in range(1, len(rows)):
        y, shade = top + r * height, grey if r in (2, 5) else 120  # some hairlines fall on one row
        draw.line((xs[0], y, xs[-1], y), fill=shade)
        draw.line((xs[0], y + 1, xs[-1], y + 1), fill=shade)
    _write_rows(draw, rows, xs, top, height, body)
    return _png(image)


def test_a_table_ruled_between_rows_with_grey_hairlines_keeps_its_rows() -> None:
    """Rows whose hairline was lighter than the ink threshold were read as one row."""
    page = run(_faint_rules_table(), engine="tesseract", languages=["eng"]).pages[0]
    table = next(b for b in page.blocks if b.table is not None)
    assert table.table is not None
    assert [row[1] for row in table.table.grid()] == ["Description", *(f"Item number {k}" for k in range(1, 7))]


def test_a_shaded_row_of_a_table_is_read_not_taken_for_a_faint_rule() -> None:
    """A light grey band behind a row is as pale as a hairline, but far thicker: its text stays."""
    image = Image.open(BytesIO(_faint_rules_table()))
    draw = ImageDraw.Draw(image)
    draw.rectangle((154, 343, 2296, 417), fill=215)  # the fourth row (item 3), shaded
    _write_rows(draw, [("3", "Item number 3", "9")], (150, 450, 1500), 340, 80, ImageFont.truetype(SERIF, 38))
    page = run(_png(image), engine="tesseract", languages=["eng"]).pages[0]
    table = next(b for b in page.blocks if b.table is not None)
    assert table.table is not None and len(table.table.grid()) == 7
    assert "Item number 3" in table.text


def test_a_scanned_table_ruled_between_rows_with_grey_hairlines_keeps_its_rows() -> None:
    """Scanned (blurred, grey paper, sensor noise, JPEG), a hairline's grey spreads over four rows
    of pixels and the noise breaks any run of single pixels; averaged along the row it holds."""
    scan = scan_jpeg(Image.open(BytesIO(_faint_rules_table(grey=190))), "faint-rules-table")
    page = run(scan, engine="tesseract", languages=["eng"]).pages[0]
    table = next(b for b in page.blocks if b.table is not None)
    assert table.table is not None and len(table.table.grid()) == 7


NOTO_CJK_BOLD = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def test_the_strokes_of_a_large_bold_title_are_no_table() -> None:
    """A slide's title in 53-point bold over a thick rule: the strokes of 固 (a box round 古) are
    0.07 in thick and cross as a table's rules do, and were read as a table of empty cells, the
    title's other characters scattered. A table has rules of a few points at most among both its
    horizontal and its vertical ones."""
    image = Image.new("L", (3300, 2550), 255)  # a 4:3 slide at 300 dpi
    draw = ImageDraw.Draw(image)
    draw.text((250, 180), "単語の固有表現らしさの測定", font=ImageFont.truetype(NOTO_CJK_BOLD, 220), fill=0)
    draw.rectangle((220, 470, 2400, 495), fill=40)
    body = ["ある単語の時系列的な分布の類似度を測定する。", "２社の新聞記事を日付ごとに揃える。"]
    for i, line in enumerate(body):
        draw.text((400, 700 + 220 * i), line, font=ImageFont.truetype(NOTO_CJK, 100), fill=0)
    blocks = run(_png(image)).pages[0].blocks
    assert [b.type for b in blocks] == ["title", "text"]
    assert blocks[0].text == "単語の固有表現らしさの測定"
