# ruff: noqa: RUF001, RUF002 (the pages' letters are the point)
"""Lines in another script than their page's (ocr/line_scripts.py): each read again with its own
script's model. The pages are drawn as a multilingual greeting: lines of an English or a Chinese
page, then a label and a line in each of Russian, Greek, Arabic, Thai, Korean and Hebrew, each in
the Debian font that has its letters (tests/data/script_pages.FONTS), at 200 dpi."""

from __future__ import annotations

import numpy as np
from data.script_pages import DPI, FONTS, MARGIN, PAGE_H, PAGE_W, RIGHT_TO_LEFT
from metrics import text_cer
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block, Line, PageResult, Word
from ocrqueue.documents.ocr.line_scripts import Candidate, in_place, missing_lines, too_short, with_lines_read_again

from .helpers import png_bytes, run

SIZE, PITCH = 34, 60
FOREIGN = {
    "Cyrillic": "Привет, мир! Как дела у всех сегодня?",
    "Greek": "Γεια σου κόσμε, καλημέρα σε όλους σήμερα.",
    "Arabic": "مرحبا بالعالم، صباح الخير للجميع",
    "Thai": "สวัสดีชาวโลก อรุณสวัสดิ์ทุกคน",
    "Hangul": "안녕하세요 세계, 좋은 아침입니다",
    "Hebrew": "שלום עולם, בוקר טוב לכולם",
}
ENGLISH = (
    "Greetings from the translation team. Each line below says hello",
    "to the world in one more language, so that readers can compare.",
)
CHINESE = ("各位读者，下面每一行用另一种语言问候世界。", "我们希望这些问候能让大家感到亲切和愉快。")
LABELS = {"Cyrillic": "俄语：", "Greek": "希腊语：", "Arabic": "阿拉伯语：", "Thai": "泰语："}


def greeting_page(rows: list[tuple[str, str]]) -> Image.Image:
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    draw = ImageDraw.Draw(image)
    for i, (script, text) in enumerate(rows):
        path, index = FONTS[script]
        font = ImageFont.truetype(path, SIZE, index=index, layout_engine=ImageFont.Layout.RAQM)
        y = MARGIN + i * PITCH
        if script in RIGHT_TO_LEFT:
            draw.text((PAGE_W - MARGIN, y), text, font=font, fill="black", anchor="ra", direction="rtl")
        else:
            draw.text((MARGIN, y), text, font=font, fill="black")
    return image


def lines_of(page: PageResult) -> list[str]:
    return [line.text for block in page.blocks for line in block.lines]


def nearest(truth: str, lines: list[str]) -> tuple[float, int]:
    """The CER of the read line nearest ``truth``, and that line's place."""
    return min((text_cer(truth, line), i) for i, line in enumerate(lines))


def test_an_english_pages_lines_in_six_other_scripts_are_each_read_in_their_own() -> None:
    """Before: read with Greek+Latin (OSD's look at the page saw Greek), the Russian line came
    back as "ΠρνΒετ, mnp! Kak gena", Thai as Greek letters, Arabic, Korean and Hebrew as Latin
    ones, with no warning."""
    rows = [("Latin", line) for line in ENGLISH]
    for script, text in FOREIGN.items():
        rows += [("Latin", f"{script}:"), (script, text)]
    page = run(png_bytes(greeting_page(rows), DPI)).pages[0]
    lines = lines_of(page)
    for script, text in FOREIGN.items():
        cer, at = nearest(text, lines)
        assert cer <= 0.1, (script, lines)
        assert lines[at - 1] == f"{script}:", "\n".join(lines)
    for line in ENGLISH:
        assert line in lines
    assert {"Cyrillic", "Arabic", "Thai", "Hebrew"} <= set(page.scripts), page.scripts
    assert {"Cyrillic", "Arabic", "Thai", "Hebrew", "Hangul"} <= set(page.languages), page.languages


def test_a_chinese_pages_lines_in_other_scripts_are_read_and_kept_in_place() -> None:
    """Before: RapidOCR read the Russian line as ", !  ?", the Greek one as "εια συ κσε" and left
    the Arabic and Thai lines out of its reading."""
    rows = [("Han", line) for line in CHINESE]
    for script, label in LABELS.items():
        rows += [("Han", label), (script, FOREIGN[script])]
    page = run(png_bytes(greeting_page(rows), DPI)).pages[0]
    lines = lines_of(page)
    for script, label in LABELS.items():
        cer, at = nearest(FOREIGN[script], lines)
        assert cer <= 0.1, (script, lines)
        assert text_cer(label, lines[at - 1]) <= 0.34, lines


def _line(box: tuple[float, float, float, float], text: str) -> Line:
    bbox = BBox(*box)
    return Line(text, bbox, 0.9, (Word(text, bbox, 0.9),))


def test_a_line_read_far_shorter_than_its_inked_width_is_asked_about() -> None:
    ink = np.zeros((100, 400), dtype=bool)
    ink[10:25, 10:310:4] = True  # a line's worth of letters
    ink[50:65, 10:40:4] = True  # a running head's parts, far apart
    ink[50:65, 250:280:4] = True
    assert too_short(_line((10, 10, 310, 25), ","), ink, 1.0)
    assert not too_short(_line((10, 10, 310, 25), "A line of forty characters, read whole."), ink, 1.0)
    assert not too_short(_line((10, 50, 280, 65), "TAR(1) TAR(1)"), ink, 1.0)


def test_rows_of_ink_outside_every_block_are_asked_about_but_not_rules_or_specks() -> None:
    ink = np.zeros((400, 600), dtype=bool)
    for x in range(50, 350, 30):  # a line of text read into a block
        ink[50:70, x : x + 20] = True
    for x in range(50, 260, 30):  # a line of letters no block holds
        ink[150:170, x : x + 20] = True
    ink[250:253, 50:550] = True  # a rule
    ink[330:332, 300:302] = True  # a speck
    block = Block("text", BBox(50, 50, 350, 70), "read", 0.9, (_line((50, 50, 350, 70), "read"),))
    found = missing_lines(ink, [block], 1.0)
    assert found == [Candidate(None, (50, 150, 250, 170), 0.0)]


def test_a_line_found_outside_every_block_follows_the_block_nearest_above_it() -> None:
    label = Block("text", BBox(50, 100, 120, 115), "Arabic:")
    below = Block("text", BBox(50, 160, 120, 175), "Russian:")
    right = Block("text", BBox(300, 90, 500, 110), "a note in the right column")
    found = Block("text", BBox(400, 122, 550, 137), "مرحبا بالعالم")
    assert in_place([label, right, below], [found]) == (label, right, found, below)
    alone = Block("text", BBox(200, 122, 250, 137), "مرحبا")
    assert in_place([label, right, below], [alone]) == (label, alone, right, below)


def test_a_line_read_again_takes_its_own_place_in_its_blocks_text() -> None:
    first, second = _line((0, 0, 100, 15), "Lo is"), _line((0, 20, 100, 35), "Lo")
    block = Block("text", BBox(0, 0, 100, 35), "Lo is Lo", 0.9, (first, second))
    new = _line((0, 20, 100, 35), "Привет")
    out = with_lines_read_again(block, {second: new})
    assert out.text == "Lo is Привет"
    assert out.lines == (first, new)
