"""Pages at 0, 90, 180 and 270 degrees on every path read as well as the page upright.

Scans (a rendered page turned), photos whose EXIF says how to turn them (or says it wrongly), PDF
pages with /Rotate (a scan stored turned, and text drawn upright on a page shown turned), and a
document mixing them page by page. Each turned page must read within 0.01 CER of the same page
upright, with its blocks in the same order, record the turn it needed (``rotation``), and give its
boxes on the page as delivered (docs/documents.md, "Scripts, languages and rotation").
"""

from __future__ import annotations

import io
from functools import cache

import numpy as np
import pikepdf
import pypdfium2 as pdfium
import pytest
from data.generate import DEJAVU, DEJAVU_BOLD, DPI, PdfBuilder, scanned, two_column_page
from data.metrics import cer
from data.prose import prose_image, prose_pdf_ops, text
from PIL import Image, ImageDraw, ImageFont

from documents.helpers import run
from ocrqueue.documents import PageResult
from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.ocr.detect import look
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf

ANGLES = (0, 90, 180, 270)
CER_MARGIN = 0.01
# EXIF orientation tag: the clockwise turn a viewer applies to the stored pixels to show them.
EXIF_TURN = {1: 0, 6: 90, 3: 180, 8: 270}


def lying(image: Image.Image, angle: int) -> Image.Image:
    """``image`` as it lies when it must be turned ``angle`` degrees clockwise to stand upright."""
    return image.rotate(angle, expand=True)


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(DPI, DPI))
    return out.getvalue()


def jpeg_with_exif(image: Image.Image, orientation: int) -> bytes:
    """A photo stored as ``image`` whose EXIF tells viewers to show it turned by ``orientation``."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image.convert("RGB").save(out, "JPEG", quality=92, dpi=(DPI, DPI), exif=exif.tobytes())
    return out.getvalue()


def body(page: PageResult) -> list[tuple[str, str]]:
    """The page's blocks in reading order, without the page number."""
    return [(b.type, b.text) for b in page.blocks if b.type not in ("header", "footer", "figure")]


def body_cer(page: PageResult) -> float:
    return cer(text(), "\n".join(t for _, t in body(page)))


@cache
def upright(columns: int, kind: str = "png") -> PageResult:
    """The page read upright, as an image or as a PDF scan: what every turned reading is held to."""
    image = prose_image(columns)
    return run(png(image) if kind == "png" else scan_pdf(image)).pages[0]


def assert_reads_as_upright(page: PageResult, reference: PageResult, rotation: int) -> None:
    assert page.rotation == rotation
    assert body_cer(page) <= body_cer(reference) + CER_MARGIN, body(page)
    assert [kind for kind, _ in body(page)] == [kind for kind, _ in body(reference)]
    for (_, got), (_, want) in zip(body(page), body(reference), strict=True):
        assert cer(want, got) <= 0.05, (got, want)


def assert_words_on_ink(page: PageResult, delivered: Image.Image) -> None:
    """Every word's box lies on ink of the page as delivered."""
    ink = np.asarray(delivered.convert("L")) < 128
    scale = delivered.width / page.width
    words = [w for b in page.blocks for ln in b.lines for w in ln.words]
    assert words
    for word in words:
        x0, y0, x1, y1 = (round(v * scale) for v in word.bbox)
        assert ink[y0 : y1 + 1, x0 : x1 + 1].mean() > 0.02, word


@pytest.mark.parametrize("columns", [1, 2])
@pytest.mark.parametrize("angle", ANGLES)
def test_a_turned_scan_reads_as_the_upright_page(angle: int, columns: int) -> None:
    delivered = lying(prose_image(columns), angle)
    page = run(png(delivered)).pages[0]
    assert_reads_as_upright(page, upright(columns), angle)
    assert (page.width, page.height) == pytest.approx(
        (delivered.width * 72 / DPI, delivered.height * 72 / DPI), abs=0.01
    )
    assert_words_on_ink(page, delivered)


@pytest.mark.parametrize("angle", ANGLES)
def test_the_first_look_finds_the_turn_of_a_page_whose_middle_is_blank(angle: int) -> None:
    """A title, two short columns and a page number far below: the middle of the ink is blank
    paper, where OSD finds nothing; the square holding the most ink tells the turn."""
    assert look(lying(two_column_page(), angle), DPI, get_engine("tesseract")).rotation == angle


def slide() -> Image.Image:
    """A landscape slide: a title and three points in large type, as a presentation prints."""
    image = Image.new("RGB", (round(11 * DPI), round(8.5 * DPI)), "white")
    draw = ImageDraw.Draw(image)
    draw.text((150, 150), "Parish Records", font=ImageFont.truetype(DEJAVU_BOLD, 160), fill="black")
    body = ImageFont.truetype(DEJAVU, 120)
    for i, point in enumerate(("Registers move in autumn", "Every volume is listed", "Requests come in writing")):
        draw.text((200, 520 + i * 300), f"- {point}", font=body, fill="black")
    return image


@pytest.mark.parametrize("angle", ANGLES)
def test_the_first_look_finds_the_turn_of_a_slide_in_large_type(angle: int) -> None:
    """No 3-inch square of a slide holds enough letters for OSD; the whole slide shrunk does."""
    assert look(lying(slide(), angle), DPI, get_engine("tesseract")).rotation == angle


@pytest.mark.parametrize("orientation", sorted(EXIF_TURN))
def test_a_photo_is_turned_as_its_exif_says_and_then_needs_no_more(orientation: int) -> None:
    """EXIF is applied first: the page as delivered is the photo shown upright, turned no further."""
    stored = lying(prose_image(1), EXIF_TURN[orientation])
    page = run(jpeg_with_exif(stored, orientation)).pages[0]
    assert_reads_as_upright(page, upright(1), 0)


@pytest.mark.parametrize("angle", [90, 180, 270])
def test_a_photo_whose_exif_is_wrong_or_missing_is_still_turned(angle: int) -> None:
    """A phone that wrote no turn (1) or the wrong one (6, a quarter turn too many): the page as
    delivered (after EXIF) lies turned, and the first look turns it upright."""
    upright_image = prose_image(1)
    missing = run(jpeg_with_exif(lying(upright_image, angle), 1)).pages[0]
    assert_reads_as_upright(missing, upright(1), angle)
    wrong = run(jpeg_with_exif(lying(upright_image, (angle + 90) % 360), 6)).pages[0]
    assert_reads_as_upright(wrong, upright(1), angle)


def rotated_pdf(pages: list[tuple[bytes, int]]) -> bytes:
    """One PDF of the first pages of ``pages``' PDFs, each given its /Rotate."""
    out = pikepdf.new()
    for data, rotate in pages:
        source = pikepdf.open(io.BytesIO(data))
        out.pages.append(source.pages[0])
        out.pages[-1].obj.Rotate = rotate
    buffer = io.BytesIO()
    out.save(buffer)
    return buffer.getvalue()


def scan_pdf(upright_image: Image.Image, angle: int = 0) -> bytes:
    """A one-page PDF holding a scan of ``upright_image`` stored lying ``angle`` degrees (its page
    the stored image's size, at DPI). The scan's tilt and noise are made upright, then the scan is
    turned: every turn holds the same pixels, turned."""
    scan = lying(Image.open(io.BytesIO(scanned(upright_image, seed=7))), angle)
    out = io.BytesIO()
    scan.save(out, "PDF", resolution=DPI)
    return out.getvalue()


def text_pdf(word_by_word: bool = False) -> bytes:
    builder = PdfBuilder()
    builder.add_page(prose_pdf_ops(2, word_by_word))
    return builder.build()


@pytest.mark.parametrize("rotate", ANGLES)
def test_a_scan_stored_turned_and_shown_upright_by_rotate_needs_no_turn(rotate: int) -> None:
    data = rotated_pdf([(scan_pdf(prose_image(2), rotate), rotate)])
    page = run(data, mode="ocr").pages[0]
    assert_reads_as_upright(page, upright(2, "pdf"), 0)


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_an_upright_scan_shown_turned_by_rotate_is_turned_back(rotate: int) -> None:
    data = rotated_pdf([(scan_pdf(prose_image(2)), rotate)])
    page = run(data, mode="ocr").pages[0]
    assert_reads_as_upright(page, upright(2, "pdf"), (360 - rotate) % 360)
    shown = pdfium.PdfDocument(data)[0].render(scale=DPI / 72).to_pil()
    assert_words_on_ink(page, shown)


@pytest.mark.parametrize("word_by_word", [False, True], ids=["lines", "words"])
@pytest.mark.parametrize("rotate", ANGLES)
def test_text_layer_pages_with_rotate_keep_their_reading_order(rotate: int, word_by_word: bool) -> None:
    """Text drawn upright on a page shown turned by /Rotate is read turned back, in order; shown
    word by word and upside down, PDFium gave a line's words backwards unless the page was shown
    upright while its text was read."""
    data = rotated_pdf([(text_pdf(word_by_word), rotate)])
    reference = run(text_pdf(word_by_word)).pages[0]
    page = run(data).pages[0]
    assert page.source == "text_layer" and page.rotation == (360 - rotate) % 360
    assert body(page) == body(reference)
    assert body_cer(page) <= 0.01


def test_text_drawn_sideways_on_a_landscape_page_is_read_upright() -> None:
    """A portrait page's text drawn turned onto a landscape page (no /Rotate): its lines run down
    the page as shown, and it is turned to read them in order."""
    builder = PdfBuilder()
    builder.WIDTH, builder.HEIGHT = PdfBuilder.HEIGHT, PdfBuilder.WIDTH
    builder.add_page([f"q 0 -1 1 0 0 {PdfBuilder.WIDTH:g} cm", *prose_pdf_ops(2), "Q"])
    page = run(builder.build()).pages[0]
    assert page.source == "text_layer" and page.rotation == 270
    assert (page.width, page.height) == pytest.approx((PdfBuilder.HEIGHT, PdfBuilder.WIDTH))
    assert body(page) == body(run(text_pdf()).pages[0])


def test_a_document_mixing_turns_page_by_page() -> None:
    pages: list[tuple[bytes, int]] = [
        (scan_pdf(prose_image(1)), 0),
        (scan_pdf(prose_image(2), 90), 0),
        (text_pdf(), 90),
        (scan_pdf(prose_image(1), 180), 90),
    ]
    result = run(rotated_pdf(pages))
    assert [p.rotation for p in result.pages] == [0, 90, 270, 90]
    assert [p.source == "text_layer" for p in result.pages] == [False, False, True, False]
    for page, columns in zip(result.pages, (1, 2, 2, 1), strict=True):
        if page.source != "text_layer":
            assert_reads_as_upright(page, upright(columns, "pdf"), page.rotation)


def test_the_searchable_pdf_puts_a_turned_pages_text_on_its_words() -> None:
    """The words of a page read turned are drawn along the words of the page as delivered."""
    delivered = lying(prose_image(1), 90)
    data = png(delivered)
    result = run(data)
    page = result.pages[0]
    out = io.BytesIO()
    write_searchable_pdf(data, result.pages, out)
    pdf = pdfium.PdfDocument(out.getvalue())[0]
    assert pdf.get_size() == pytest.approx((page.width, page.height), abs=0.01)
    textpage = pdf.get_textpage()
    found = str(textpage.get_text_range())
    for word in ("parish", "registers", "bishop", "handwriting"):
        at = found.find(word)
        assert at >= 0, word
        box = _delivered_box(textpage.get_charbox(at), page.height)
        word_boxes = [w.bbox for b in page.blocks for ln in b.lines for w in ln.words if w.text.startswith(word)]
        assert any(_inside(box, w) for w in word_boxes), (word, box, word_boxes)


def _delivered_box(char: tuple[float, float, float, float], height: float) -> BBox:
    left, bottom, right, top = char
    return BBox(left, height - top, right, height - bottom)


def _inside(box: BBox, word: BBox, slack: float = 2.0) -> bool:
    return (
        word.x0 - slack <= box.x0
        and box.x1 <= word.x1 + slack
        and word.y0 - slack <= box.y0
        and box.y1 <= word.y1 + slack
    )
