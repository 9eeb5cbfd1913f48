"""A table of contents on a rendered page: each entry one line from its title through its dot
leader to its page number, the leader one word of dots with the role "leader", not letters an
engine made of the dots ("oaa", "2... ee") and not a column of page numbers read after the titles."""

from __future__ import annotations

import re
from io import BytesIO

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.layout.checkboxes import find_checkboxes
from ocrqueue.documents.layout.leaders import find_leaders
from ocrqueue.documents.layout.straighten import deskew, ink_pieces
from ocrqueue.documents.model import Line

from .helpers import run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
ENTRIES = [
    (0, "1 Getting started", 1),
    (1, "1.1 Installing the service", 2),
    (1, "1.2 Running the workers", 4),
    (1, "1.3 Limits on size and pages", 7),
    (0, "2 Reading documents", 11),
    (1, "2.1 Scripts and languages", 12),
    (1, "2.2 Tables and forms", 15),
    (0, "3 Operating the queue", 19),
    (1, "3.1 Backups and restores", 23),
    (1, "3.2 Monitoring", 27),
]
PITCH, NUMBER_RIGHT = 30, 2200  # pixels at 300 dpi: the leaders' dots sit on one grid, as TeX sets them


def _contents_page() -> Image.Image:
    return _drawn_contents(ENTRIES, SANS, "Contents", dots_below=34, chapter_leaders=True)


def _drawn_contents(
    entries: list[tuple[int, str, int]], font_path: str, heading: str, dots_below: int, chapter_leaders: bool
) -> Image.Image:
    """A contents page at 300 dpi: entries indented by level, dots on one grid ``dots_below`` the
    entry's top (TeX's leaders; none after a chapter's title unless ``chapter_leaders``) up to its
    page number set flush right."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font, title = ImageFont.truetype(font_path, 40), ImageFont.truetype(font_path, 64)
    draw.text((300, 250), heading, font=title, fill=0)
    y = 450
    for level, entry, number in entries:
        x = 300 + 90 * level
        draw.text((x, y), entry, font=font, fill=0)
        dot = (int(draw.textlength(entry, font=font)) + x + 2 * PITCH) // PITCH * PITCH
        while (level or chapter_leaders) and dot < NUMBER_RIGHT - 90:
            draw.ellipse((dot, y + dots_below, dot + 6, y + dots_below + 6), fill=0)
            dot += PITCH
        draw.text((NUMBER_RIGHT - draw.textlength(str(number), font=font), y), str(number), font=font, fill=0)
        y += 90 if level or number == 1 else 110
    return image


def _png(image: Image.Image) -> bytes:
    out = BytesIO()
    image.save(out, format="PNG", dpi=(300, 300))
    return out.getvalue()


def _entry_lines(lines: list[Line]) -> list[tuple[str, str]]:
    """(title, page number) of each line that has a leader, the leader's own text checked."""
    found = []
    for line in lines:
        leaders = [w for w in line.words if w.role == "leader"]
        if leaders:
            assert re.fullmatch(r"\.( \.)+", leaders[0].text), leaders[0].text
            before, after = line.text.split(leaders[0].text)
            found.append((before.strip(), after.strip()))
    return found


def test_each_contents_entry_is_one_line_through_its_leader_to_its_number() -> None:
    blocks = run(_png(_contents_page())).pages[0].blocks
    lines = [ln for b in blocks for ln in b.lines]
    assert _entry_lines(lines) == [(entry, str(number)) for _, entry, number in ENTRIES]
    assert not any(b.text.strip().isdigit() for b in blocks), "a page number was cut off its entry"


def test_a_scanned_contents_page_keeps_its_entries_whole() -> None:
    """On a scan, Tesseract reads some lone page numbers as letters ("i" for "1"); the entries
    themselves are read exactly once the dots are painted out (before: "EOCHiNG Slatted")."""
    blocks = run(scan_jpeg(_contents_page(), "contents-page")).pages[0].blocks
    entries = _entry_lines([ln for b in blocks for ln in b.lines])
    assert [entry for entry, _ in entries] == [entry for _, entry, _ in ENTRIES]
    assert all(number for _, number in entries)


def test_leaders_are_found_with_their_dots_and_nothing_else_is() -> None:
    image = _contents_page()
    ink = np.asarray(image) < 128
    leaders = find_leaders(ink, 300)
    assert len(leaders) == len(ENTRIES)
    assert all(leader.spaced and abs(leader.pitch - PITCH) < 1 for leader in leaders)
    prose = Image.new("L", (2550, 600), 255)
    ImageDraw.Draw(prose).text(
        (300, 200),
        "Dots in prose... are no leader: e.g. i.e. a.b.c.d.e.f. and so on.",
        font=ImageFont.truetype(SANS, 40),
        fill=0,
    )
    assert find_leaders(np.asarray(prose) < 128, 300) == []


def test_leaders_and_check_boxes_are_looked_for_in_one_labelling_of_the_straightened_pages_ink() -> None:
    """The ink's connected pieces are labelled once for both; the leaders and check boxes found
    among them are those found from the ink alone."""
    straight = deskew(_contents_page(), 300)
    pieces = ink_pieces(straight.ink)
    leaders = find_leaders(straight.ink, 300, pieces)
    assert leaders == find_leaders(straight.ink, 300) and len(leaders) == len(ENTRIES)
    assert find_checkboxes(straight.ink, 300, pieces) == find_checkboxes(straight.ink, 300)


NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
JAPANESE = [
    (0, "1 はじめに", 1),
    (1, "1.1 インストール", 2),
    (1, "1.2 起動と停止", 4),
    (1, "1.3 設定ファイルの書き方", 7),
    (0, "2 文書の読み取り", 11),
    (1, "2.1 文字と言語", 12),
    (1, "2.2 表と書式", 15),
    (0, "3 キューの運用", 19),
    (1, "3.1 バックアップと復元", 23),
    (1, "3.2 監視", 27),
]
CHINESE = [
    (0, "第一章 引言", 1),
    (1, "1.1 安装服务", 2),
    (1, "1.2 启动与停止", 4),
    (1, "1.3 配置文件", 7),
    (0, "第二章 文档识别", 11),
    (1, "2.1 文字与语言", 12),
    (1, "2.2 表格与表单", 15),
    (0, "第三章 队列运维", 19),
    (1, "3.1 备份与恢复", 23),
    (1, "3.2 监控", 27),
]
HEADING = "目次"


def _cjk_contents_page(entries: list[tuple[int, str, int]]) -> Image.Image:
    """A contents page as DBLaTeX sets one in Japanese or Chinese: spaced dots on one grid, page
    numbers set flush right, and no leader after a chapter's title."""
    return _drawn_contents(entries, NOTO_CJK, HEADING, dots_below=44, chapter_leaders=False)


def _cjk_entries(data: bytes, **options: object) -> list[tuple[str, bool, str]]:
    """(title, whether it has a leader, page number) of each line under the heading, in order."""
    page = run(data, **options).pages[0]
    assert page.source == "rapidocr"  # read region by region
    lines = [ln for b in page.blocks for ln in b.lines if ln.text != HEADING]
    found = []
    for line in lines:
        leaders = [w for w in line.words if w.role == "leader"]
        if leaders:
            assert re.fullmatch(r"\.( \.)+", leaders[0].text), leaders[0].text
            before, after = line.text.split(leaders[0].text)
        else:
            before, _, after = line.text.rpartition(" ")
        # Spaces between the section number and a title in kana and kanji are the engine's to give.
        found.append((before.replace(" ", ""), bool(leaders), after.strip()))
    return found


def _cjk_lines(entries: list[tuple[int, str, int]]) -> list[tuple[str, bool, str]]:
    return [(entry.replace(" ", ""), level > 0, str(number)) for level, entry, number in entries]


def test_a_japanese_contents_page_read_by_region_keeps_each_entry_one_line() -> None:
    """RapidOCR, reading a page region by region, read the dots as full stops, and the layout,
    seeing too little ink in them, put the page numbers in regions of their own, read after all
    the entries (a dev Japanese manual's contents page: CER 0.83). A chapter's line, with no
    leader, keeps its page number as well."""
    assert _cjk_entries(_png(_cjk_contents_page(JAPANESE))) == _cjk_lines(JAPANESE)


def test_a_scanned_japanese_contents_page_keeps_each_entry_one_line() -> None:
    assert _cjk_entries(scan_jpeg(_cjk_contents_page(JAPANESE), "japanese-contents-page")) == _cjk_lines(JAPANESE)


def test_a_chinese_contents_page_the_layout_model_takes_for_a_table_is_read_as_lines() -> None:
    """The layout model took this page for a table without rules: read as one, it came back as
    a table of titles and page numbers, its leaders lost. Its languages are named: OSD calls so
    sparse a Chinese page Hangul (with or without its leaders)."""
    assert _cjk_entries(_png(_cjk_contents_page(CHINESE)), languages=["chi_sim", "eng"]) == _cjk_lines(CHINESE)
