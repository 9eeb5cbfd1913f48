"""Japanese and Chinese set in vertical columns (writing-mode: vertical-rl, typeset by Chromium):
read column by column, right to left, top to bottom, as their readers read them."""

from __future__ import annotations

import random
import re

import pytest
from metrics import cer
from support.printed import chromium_page, printed_pdf

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.vertical import is_vertical, stacked_into_columns, vertical_blocks
from ocrqueue.documents.model import Line
from ocrqueue.documents.ocr.page import with_vertical_models

from .helpers import run

JAPANESE = (
    "日本語の文章は縦書きで右から左へ読みます。",
    "この本はプログラムのインストール方法と基本的な使い方を新しい利用者に説明します。",
)
CHINESE = ("中文的文章可以竖排\uff0c从右到左阅读。", "这本书向新用户说明安装程序的方法和基本的使用方法。")


@pytest.mark.parametrize(
    ("paragraphs", "lang", "font"),
    [(JAPANESE, "ja", "Noto Serif CJK JP"), (CHINESE, "zh", "Noto Serif CJK SC")],
    ids=["japanese", "chinese"],
)
def test_vertical_columns_read_right_to_left_from_the_text_layer(
    paragraphs: tuple[str, ...], lang: str, font: str
) -> None:
    with chromium_page() as page:
        pdf = printed_pdf(page, paragraphs, lang, font, vertical=True, size_pt=18)
    blocks = run(pdf, mode="text").pages[0].blocks
    assert [b.text for b in blocks] == list(paragraphs)


GAZETTE_TIERS = (
    ("道路交通法施行令の一部を改正する政令をここに公布する。", "内閣は法律の施行に伴いこの政令を制定する。"),
    ("第二条第一項の表の青色の灯火の項を改める。", "歩行者は道路を横断してはならないこと。"),
)


def _gazette_lines() -> list[Line]:
    """A page's text layer as PDFium gives a gazette that Acrobat Distiller set (pdfminer.six's
    samples): two tiers of columns, top down, each column right to left, every character (or a
    character with its punctuation) a line of its own, the columns in a shuffled order, so that
    neither the lines nor their order show the columns."""
    size, pitch = 8.0, 9.5
    columns: list[list[Line]] = []
    for tier, paragraphs in enumerate(GAZETTE_TIERS):
        top, x = 60.0 + tier * 260.0, 500.0
        for paragraph in paragraphs:
            for start in range(0, len(paragraph), 18):
                pieces = re.findall(r".[、。」]*", paragraph[start : start + 18])
                y, column = top, []
                for piece in pieces:
                    column.append(Line(piece, BBox(x, y, x + size, y + len(piece) * size)))
                    y += len(piece) * pitch
                columns.append(column)
                x -= 2 * size
            x -= 2 * size  # a blank column between paragraphs
    random.Random(7).shuffle(columns)
    return [line for column in columns for line in column]


def test_a_gazette_written_a_character_a_line_reads_tier_by_tier_right_to_left() -> None:
    columns = stacked_into_columns(_gazette_lines())
    assert is_vertical(columns)
    assert [b.text for b in vertical_blocks(columns)] == [p for tier in GAZETTE_TIERS for p in tier]


def test_one_character_lines_of_a_horizontal_table_are_not_stacked_into_columns() -> None:
    cells = [
        Line(ch, BBox(100 + 80 * k, 100 + 30 * row, 112 + 80 * k, 112 + 30 * row))
        for row in range(4)
        for k, ch in enumerate("甲乙丙")
    ]
    prose = [
        Line(
            "これは横書きの本文です。表の前に置かれた説明の文章が続きます。" * 2,
            BBox(100, 20 + 16 * i, 500, 32 + 16 * i),
        )
        for i in range(3)
    ]
    assert stacked_into_columns(cells + prose) == cells + prose


def _column(x: float, top: float, bottom: float, text: str) -> Line:
    return Line(text, BBox(x, top, x + 20, bottom))


def test_a_short_column_or_a_wide_gap_ends_a_paragraph() -> None:
    lines = [
        _column(100, 50, 250, "をさせる"),  # third column from the right, its paragraph's last
        _column(300, 50, 500, "一二三四"),
        _column(270, 50, 500, "五六七八"),
        _column(240, 50, 300, "九十"),  # short: the paragraph ends
        _column(210, 60, 500, "次の段落"),
    ]
    assert is_vertical(lines)
    assert [b.text for b in vertical_blocks(lines)] == ["一二三四五六七八九十", "次の段落", "をさせる"]


@pytest.mark.parametrize(
    ("paragraphs", "lang", "font", "engine", "languages", "bound"),
    [
        (JAPANESE, "ja", "Noto Serif CJK JP", "tesseract", ("Japanese",), 0.05),
        (JAPANESE, "ja", "Noto Serif CJK JP", "auto", ("auto",), 0.05),
        (CHINESE, "zh", "Noto Serif CJK SC", "auto", ("auto",), 0.12),
    ],
    ids=["japanese-tesseract", "japanese-auto", "chinese-auto"],
)
def test_vertical_columns_read_right_to_left_by_ocr(
    paragraphs: tuple[str, ...], lang: str, font: str, engine: str, languages: tuple[str, ...], bound: float
) -> None:
    """Tesseract reads with the vertical model beside the one asked for (Japanese_vert), RapidOCR
    with its own; either way the columns come right to left. With no options, OSD calls the
    vertical Japanese page Han and RapidOCR reads it first (CER 0.25 here); the kana in that
    reading send it to Tesseract's vertical model (engine_choice.VERTICAL_RANKING)."""
    with chromium_page() as page:
        pdf = printed_pdf(page, paragraphs, lang, font, vertical=True, size_pt=18)
    result = run(pdf, mode="ocr", engine=engine, languages=languages).pages[0]
    text = "\n".join(b.text for b in result.blocks)
    assert cer("\n".join(paragraphs), text) <= bound, text
    assert text.index(paragraphs[0][:4]) < text.index(paragraphs[1][:4]), text
    if lang == "ja":
        assert (result.source, result.languages) == ("tesseract", ("Japanese", "Japanese_vert"))


def test_a_horizontal_page_keeps_the_horizontal_model_alone() -> None:
    with chromium_page() as page:
        pdf = printed_pdf(page, JAPANESE, "ja", "Noto Serif CJK JP", size_pt=18)
    result = run(pdf, mode="ocr", languages=("Japanese",)).pages[0]
    assert result.languages == ("Japanese",)
    assert cer("\n".join(JAPANESE), "\n".join(b.text for b in result.blocks)) <= 0.03


def test_vertical_models_go_beside_their_languages_and_latin_ones_leave() -> None:
    offered = frozenset({"Japanese", "Japanese_vert", "Latin", "eng", "chi_sim"})
    assert with_vertical_models(("Japanese", "Latin"), offered) == ("Japanese", "Japanese_vert")
    assert with_vertical_models(("chi_sim", "eng"), offered) == ("chi_sim", "eng"), "no vertical model: unchanged"
