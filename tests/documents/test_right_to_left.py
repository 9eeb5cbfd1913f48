"""Right-to-left pages (Arabic, Persian, Hebrew) printed by Chromium: logical order on every path.

The truth is the HTML source in logical order. Chromium's PDFs carry no zero-width non-joiner (it
draws nothing, so Skia writes no glyph for it): the born-digital truth leaves it out; the OCR path
must keep it where Tesseract reads it.
"""

# ruff: noqa: RUF001 (Arabic and Hebrew letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

import io

import pypdfium2 as pdfium
import pytest
from metrics import bag_of_words_f1, cer, full_text, tokens
from rtl_pages import ARABIC, HEBREW, PAGES, PERSIAN, RtlPage, print_pdfs

from ocrqueue.documents.model import PageResult

from .helpers import run

ZWNJ = "\u200c"
OCR_MODEL = {"arabic": "Arabic", "persian": "Arabic", "hebrew": "Hebrew"}
# Measured on these pages (Tesseract 5.5 in tesserocr): what is lost is the Latin words, which the
# Arabic and Hebrew models alone do not read, and the Arabic pages' titles.
OCR_CER_BOUND = {"arabic": 0.2, "persian": 0.2, "hebrew": 0.1}


@pytest.fixture(scope="session")
def rtl_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return print_pdfs(PAGES, tmp_path_factory.mktemp("rtl"))


def _rendered(pdf: bytes, dpi: int = 200) -> bytes:
    document = pdfium.PdfDocument(pdf)
    try:
        image = document[0].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(dpi, dpi))
    return out.getvalue()


def _only_page(data: bytes, **options: object) -> PageResult:
    result = run(data, **options)
    assert len(result.pages) == 1
    return result.pages[0]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
@pytest.mark.parametrize("char_boxes", [False, True], ids=["by-word", "by-char"])
def test_born_digital_right_to_left_pages_read_in_logical_order(
    rtl_pdfs: dict[str, bytes], page: RtlPage, char_boxes: bool
) -> None:
    read = _only_page(rtl_pdfs[page.name], char_boxes=char_boxes)
    assert read.source == "text_layer"
    text = full_text(read)
    truth = page.text.replace(ZWNJ, "")
    assert cer(truth, text) == 0.0, text
    assert bag_of_words_f1(truth, text) == 1.0
    words = tokens(text)
    for key in page.key_words:
        assert key.replace(ZWNJ, "") in words or key in text, key
    assert not [b for b in read.blocks if b.type == "table"], "right-to-left prose taken for a table"


def test_lam_alef_ligatures_come_back_lam_first(rtl_pdfs: dict[str, bytes]) -> None:
    """Chromium draws each lam-alef as one glyph whose ToUnicode is the two letters: "الإنتاجية"
    came back as "اإلنتاجية" and "کالای" as "کاالی" before the boxes put them in order."""
    arabic = full_text(_only_page(rtl_pdfs["arabic"]))
    persian = full_text(_only_page(rtl_pdfs["persian"]))
    assert arabic.count("الإنتاجية") == 3 and "اإلنتاجية" not in arabic
    assert "ولا شك" in arabic and "لا تزال" in arabic
    assert persian.count("کالای") == 4 and "کاالی" not in persian


def test_numbers_and_latin_words_stay_in_place_inside_right_to_left_lines(rtl_pdfs: dict[str, bytes]) -> None:
    arabic = full_text(_only_page(rtl_pdfs["arabic"]))
    hebrew = full_text(_only_page(rtl_pdfs["hebrew"]))
    assert "في عام 2024 بنسبة 15% مقارنة" in arabic
    assert "مع Python 3.12 ونظام Linux على" in arabic
    assert "גדלו המכירות ב-12% לעומת" in hebrew
    assert "עם\nLinux." in hebrew  # a line of Latin alone ends its paragraph with the full stop last


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_scanned_right_to_left_pages_read_in_logical_order(rtl_pdfs: dict[str, bytes], page: RtlPage) -> None:
    """Tesseract's iterator spells each word of a right-to-left line left to right as drawn; the
    words come back in reading order with their letters in logical order."""
    read = _only_page(_rendered(rtl_pdfs[page.name]), languages=(OCR_MODEL[page.name],))
    text = full_text(read)
    assert cer(page.text, text) <= OCR_CER_BOUND[page.name], text
    words = tokens(text)
    rtl_keys = [k for k in page.key_words if not k.isascii()]
    assert sum(k in words for k in rtl_keys) >= len(rtl_keys) - 1, text
    assert not [b for b in read.blocks if b.type == "table"]


def test_scanned_persian_keeps_the_zero_width_non_joiner(rtl_pdfs: dict[str, bytes]) -> None:
    text = full_text(_only_page(_rendered(rtl_pdfs["persian"]), languages=("Arabic",)))
    assert "می\u200cخواهم" in text and "نمی\u200cشود" in text


def test_scanned_numbers_inside_right_to_left_lines_read_left_to_right(rtl_pdfs: dict[str, bytes]) -> None:
    arabic = full_text(_only_page(_rendered(rtl_pdfs[ARABIC.name]), languages=("Arabic",)))
    hebrew = full_text(_only_page(_rendered(rtl_pdfs[HEBREW.name]), languages=("Hebrew",)))
    persian = full_text(_only_page(_rendered(rtl_pdfs[PERSIAN.name]), languages=("Arabic",)))
    assert "في عام 2024 بنسبة 15% مقارنة" in arabic
    assert "המכירות ב-12% לעומת" in hebrew
    assert "در سال 1402 بیش از 300 کالای" in persian
