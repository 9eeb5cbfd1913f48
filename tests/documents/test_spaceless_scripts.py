"""Scripts written without spaces between words (Thai, Lao, Han, kana) and with combining marks
(Vietnamese): a line break inside a Thai paragraph adds no space, the pieces Tesseract cuts a Thai
line into join as printed, and text comes out composed (NFC) on both paths. Pages are typeset by
Chromium (tests/support/printed.py); their source text is the ground truth."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from metrics import cer
from support.printed import chromium_page, printed_pdf

from ocrqueue.documents.text import clean_text, composed, join_lines, join_words, piece_gap

from .helpers import run

THAI = (
    "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ แต่เว้นวรรคระหว่างประโยค "
    "ระบบรู้จำตัวอักษรต้องรวมคำให้ถูกต้องโดยไม่เพิ่มช่องว่างภายในคำ "
    "หนังสือเล่มนี้อธิบายวิธีติดตั้งโปรแกรมและการใช้งานเบื้องต้นสำหรับผู้ใช้ใหม่ทุกคน"
)
THAI_WORDS = ("ภาษาไทย", "เว้นวรรคระหว่างคำ", "ระหว่างประโยค", "ภายในคำ", "ผู้ใช้ใหม่ทุกคน")
VIETNAMESE = (
    "Tiếng Việt là ngôn ngữ chính thức của Việt Nam. Cuốn sách này hướng dẫn cách cài đặt chương "
    "trình và sử dụng cơ bản cho người dùng mới. Xin hãy đọc kỹ những hướng dẫn sau đây."
)
THAI_LETTERS = st.characters(min_codepoint=0x0E01, max_codepoint=0x0E5B)
LAO_LETTERS = st.characters(min_codepoint=0x0E81, max_codepoint=0x0EDF)
KANA_AND_HAN = st.characters(min_codepoint=0x3041, max_codepoint=0x30FA) | st.characters(
    min_codepoint=0x4E00, max_codepoint=0x9FFF
)
SPACELESS = THAI_LETTERS | LAO_LETTERS | KANA_AND_HAN


@given(st.lists(st.text(SPACELESS, min_size=1, max_size=8), min_size=1, max_size=6))
def test_joining_lines_of_a_spaceless_script_adds_no_space(lines: list[str]) -> None:
    assert join_lines(lines) == "".join(lines)
    assert join_words(lines) == "".join(lines)


@given(st.text(THAI_LETTERS, min_size=1, max_size=6), st.text(THAI_LETTERS, min_size=1, max_size=6))
def test_tesseract_pieces_take_a_space_only_where_a_blank_was_printed(before: str, after: str) -> None:
    assert piece_gap(before, after, blank_printed=False) == ""
    assert piece_gap(before, after, blank_printed=True) == " "
    assert piece_gap("한국어는", "대한민국의", blank_printed=False) == ""
    assert piece_gap("word", "next", blank_printed=False) == " "  # Latin words: always a space


@given(st.text())
def test_composed_text_is_nfc_and_stays_so(text: str) -> None:
    once = composed(text)
    assert unicodedata.is_normalized("NFC", once)
    assert composed(once) == once


def test_vietnamese_marks_and_thai_sara_am_are_composed() -> None:
    assert clean_text("Vie\u0323\u0302t") == "Việt"
    assert len(clean_text("Vie\u0323\u0302t")) == 4
    assert clean_text("ค\u0e4d\u0e32") == "คำ"  # Tesseract reads SARA AM as NIKHAHIT + SARA AA


@pytest.fixture(scope="module")
def thai_pdf() -> bytes:
    with chromium_page() as page:
        return printed_pdf(page, [THAI, THAI], "th", "Garuda")


def test_thai_text_layer_has_no_space_inside_a_word(thai_pdf: bytes) -> None:
    blocks = run(thai_pdf, mode="text").pages[0].blocks
    text = "\n".join(b.text for b in blocks)
    assert all(word in text for word in THAI_WORDS), text
    # The paragraph's lines break inside words: joining them adds no space. (Chromium's PDF carries
    # each Thai cluster as ActualText, which PDFium reads with a space of its own now and then,
    # "สำ หรับ": those are inside the lines, not added here.)
    for block in blocks:
        assert len(block.lines) > 1
        assert block.text.count(" ") == sum(line.text.count(" ") for line in block.lines), block.text


def test_thai_scan_reads_words_whole(thai_pdf: bytes) -> None:
    """The OCR path: Tesseract's Thai model cuts a line into clusters; they join as printed."""
    text = "\n".join(b.text for b in run(thai_pdf, mode="ocr", languages=("Thai",)).pages[0].blocks)
    assert cer(f"{THAI}\n{THAI}", text) <= 0.2, text
    assert sum(word in text for word in THAI_WORDS) >= 3, text
    spaces = sum(1 for _ in re.finditer(r"(?<=[\u0e00-\u0e7f]) (?=[\u0e00-\u0e7f])", text))
    assert spaces <= 2 * THAI.count(" ") + 2, text  # printed: one between sentences


@pytest.mark.parametrize("mode", ["text", "ocr"])
def test_vietnamese_comes_out_composed(mode: str) -> None:
    with chromium_page() as page:
        pdf = printed_pdf(page, [unicodedata.normalize("NFD", VIETNAMESE)], "vi", "DejaVu Serif")
    options = {"languages": ("Vietnamese",)} if mode == "ocr" else {}
    text = " ".join(b.text for b in run(pdf, mode=mode, **options).pages[0].blocks)
    assert unicodedata.is_normalized("NFC", text)
    assert cer(VIETNAMESE, text) <= 0.03, text
    assert "Việt Nam" in text
