"""Latin words in a Russian page's lines, which the Cyrillic model read in Cyrillic letters
("TEXMFHOME" as "ТЕХМЕНОМЕ", "\\usepackage" as "\\иѕераскаде"), are read again alone with English
(engines/latin_taken.py). The page is drawn as a LaTeX manual sets such lines: Russian prose in a
serif face, commands and paths in a typewriter face (DejaVu Serif and DejaVu Sans Mono, 10 pt at
300 dpi), and scanned as the accuracy bench scans."""

# ruff: noqa: RUF001, RUF002 (Cyrillic look-alikes of Latin letters are the point)

from __future__ import annotations

import re

from data.realpages import scan_jpeg
from metrics import tokens
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.engines.latin_taken import is_taken_candidate, latin_reading_kept

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
# Russian sentences; the words between bars are set in the typewriter face.
LINES = (
    "Личные пакеты и файлы держите в директории |TEXMFHOME|.",
    "Эта переменная становится |$HOME| под UNIX и |%USERPROFILE%| под Windows.",
    "Изменение |TEXDIR| изменит также |TEXMFLOCAL| и |TEXMFSYSVAR|.",
    "Программы |psselect|, |psnup| и |pdfjam| работают с файлами PostScript.",
    "Для проверки кодировки |UTF-8| используйте команду |iconv|.",
    "Пакет |hyperref| подключается командой |\\usepackage| в преамбуле.",
    "Каталог |/usr/local/texlive| создаётся программой установки.",
    "Программа |xindy| строит алфавитный указатель для |makeindex|.",
)
SIZE, PITCH, MARGIN = 42, 80, 236
# Read in Cyrillic letters before, with the page's other Latin words in Latin ones.
TAKEN = ("TEXMFHOME", "psselect", "UTF", "hyperref", "usepackage", "xindy")


def russian_page() -> Image.Image:
    serif, mono = ImageFont.truetype(SERIF, SIZE), ImageFont.truetype(MONO, SIZE)
    image = Image.new("RGB", (2480, 3508), "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(LINES):
        x = float(MARGIN)
        for i, part in enumerate(line.split("|")):
            font = mono if i % 2 else serif
            draw.text((x, MARGIN + row * PITCH), part, font=font, fill="black")
            x += draw.textlength(part, font=font)
    return image


def test_latin_words_the_cyrillic_model_took_come_back_in_latin_letters() -> None:
    """Before: "ТЕХМЕНОМЕ", "рѕѕе1есї", "ОТЕ", "һурегге?", "\\иѕераскаде", "хіпӣу". The Russian words
    all stay in Cyrillic letters."""
    page = run(scan_jpeg(russian_page(), "latin-taken")).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert page.scripts[0] == "Cyrillic", text
    words = set(tokens(text))
    assert set(TAKEN) <= words, text
    russian = {w for line in LINES for w in tokens(re.sub(r"\|[^|]*\|", " ", line)) if re.search("[а-яё]", w)}
    assert russian <= words, text


def test_a_word_alike_in_both_alphabets_stays_in_the_script_read() -> None:
    """A word read again as the same letters to the eye ("на" as "Ha", "ТЕХ" as "TEX") is kept as read."""
    assert is_taken_candidate("на", "Cyrillic", 0.8)
    assert not latin_reading_kept("на", 0.8, "Ha", 0.95)
    assert not latin_reading_kept("ТЕХ", 0.8, "TEX", 0.95)
    assert not latin_reading_kept("Сброс", 0.88, "C6poc", 0.9)
    assert latin_reading_kept("РУР:", 0.89, "DVD:", 0.96)


def test_only_doubtful_words_of_the_script_alone_are_read_again() -> None:
    assert not is_taken_candidate("директории", "Cyrillic", 0.95)
    assert not is_taken_candidate("UNIX", "Cyrillic", 0.5)
    assert not is_taken_candidate("8", "Cyrillic", 0.5)
    assert not latin_reading_kept("Матема-", 0.77, "Marema-", 0.84)
    assert not latin_reading_kept("ТЕХМЕ", 0.93, "TEXMF", 0.92)
