# ruff: noqa: RUF001 (Armenian letters that look Latin are the point)
"""Scripts Tesseract's script detection cannot see (ocr/unseen_scripts.py): an Armenian page, which
OSD calls Latin (its unicharset has no Armenian letter) and turns as it would turn Latin, is read
with the Armenian model when that is installed, and otherwise warns, naming Armenian and the
package that reads it. The sentences are Armenian translations from GTK's message catalog
(/usr/share/locale/hy/LC_MESSAGES/gtk30.mo), drawn in DejaVu Sans."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from data.script_pages import DPI, script_page
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents import ProcessOptions
from ocrqueue.documents.engines.tesseract import find_tessdata
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import LOW_CONFIDENCE_READING, Block, Line, PageResult, Word
from ocrqueue.documents.ocr.unseen_scripts import UNSEEN, garbled, read_poorly, unseen_script, unseen_warning
from ocrqueue.documents.scripts import SCRIPT_MODELS

from .helpers import run
from .test_script_warnings import convert, tessdata_without
from .test_scripts_read import letters_cer

ARMENIAN = (
    "Կապույտ երանգի քանակությունը գույնի մեջ։",
    "Աշխատանքի ատրիբուտներն ստանալու համար վավերացում է անհրաժեշտ",
    "Այս փաստաթուղթը տպելու համար վավերացում է անհրաժեշտ",
    "Չի հաջողվում անցնել պանակին, քանի որ այն տեղային չէ",
    "Չհաջողվեց վերստանալ ֆայլի մասին ինֆորմացիա",
    "Նախնական դիտման ընթացքում առաջացած սխալ",
    "Բոլոր զգուշացումները դարձնել վճռորոշ",
    "Միայն լոկալ ֆայլերը կարող են ընտրվել",
    "Ընտրեք ցուցադրվող փաստաթղթերի տեսակները",
    "Հնարավոր չէ ցուցադրել պանակի պարունակությունը",
)


def armenian_png() -> bytes:
    buffer = io.BytesIO()
    script_page(ARMENIAN, "Armenian").save(buffer, format="PNG", dpi=(DPI, DPI))
    return buffer.getvalue()


def test_a_page_in_a_script_osd_cannot_see_names_it_when_its_model_is_missing(tmp_path: Path) -> None:
    source = tmp_path / "armenian.png"
    source.write_bytes(armenian_png())
    page = convert(source, tmp_path / "out", tessdata_without(tmp_path / "tessdata", "Armenian"))
    warnings = page["warnings"]
    assert isinstance(warnings, list)
    doubts = [w for w in warnings if w.startswith(LOW_CONFIDENCE_READING)]
    assert len(doubts) == 1, warnings
    assert "Armenian (tesseract-ocr-script-armn)" in doubts[0] and "all-scripts" in doubts[0]
    # A doubt: the task's events record it as a `warned` event (service/ocr_task.py).
    assert PageResult.from_dict(page).doubts == tuple(doubts)


def test_a_page_in_a_script_osd_cannot_see_is_read_with_its_model() -> None:
    if not (Path(find_tessdata()) / "Armenian.traineddata").exists():
        pytest.fail("the Armenian model is missing: scripts/system-deps.sh test")
    page = run(armenian_png()).pages[0]
    read = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert page.scripts[0] == "Armenian", read
    assert page.languages[0] == "Armenian" and page.rotation == 0
    assert letters_cer("\n".join(ARMENIAN), read) <= 0.05, read
    assert not page.warnings


# Nautilus' Armenian messages (/usr/share/locale/hy/LC_MESSAGES/nautilus.mo) with "և" ("and") as a word.
ARMENIAN_AND = (
    "Խնդրվում է մուտքագրել անունը և փորձել կրկին",
    "Խնդրվում է կրկին ստուգել ուղղագրությունը և փորձել կրկին։",
    "Ընտրել ֆայլը և տեղափոխել այն այլ պանակ։",
    *ARMENIAN[:7],
)


def test_the_armenian_word_and_is_read_as_itself() -> None:
    """The Armenian model has no "և" and read each as "ն", which is no word on its own."""
    if not (Path(find_tessdata()) / "Armenian.traineddata").exists():
        pytest.fail("the Armenian model is missing: scripts/system-deps.sh test")
    buffer = io.BytesIO()
    script_page(ARMENIAN_AND, "Armenian").save(buffer, format="PNG", dpi=(DPI, DPI))
    page = run(buffer.getvalue()).pages[0]
    words = [w.text for block in page.blocks for line in block.lines for w in line.words]
    assert page.languages[0] == "Armenian" and words.count("\u0587") == 3, words
    assert "\u0576" not in words, words


def test_a_latin_page_read_poorly_whose_lines_read_well_alone_names_no_unseen_script() -> None:
    """A Latin page read poorly as a page whose poor lines read well alone with its own language
    is in its own script: no list of the fourteen scripts OSD cannot see, and no probe with their
    models (OCRmyPDF's poster was such a page, 0.69 alone with eng, until the stems of its display
    type stopped being painted out as rules; it now reads at 0.93-0.96 and has no doubt at all)."""
    lines_text = ["Recording a sequence is simple", "Press record and play to begin", "Erase a wrong note at once"]
    image = Image.new("L", (1600, 600), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 48)
    scale = DPI / 72
    lines = []
    for k, text in enumerate(lines_text):
        top = 80 + k * 150
        draw.text((80, top), text, font=font, fill=0)
        lines.append(Line(text, BBox(60 / scale, (top - 15) / scale, 1500 / scale, (top + 75) / scale), 0.3))
    blocks = [Block("text", BBox(60 / scale, 60 / scale, 1500 / scale, 500 / scale), "", 0.3, tuple(lines))]
    assert read_poorly(blocks)
    options = ProcessOptions()
    assert unseen_warning(image, scale, blocks, options, ("Latin",), ("eng",)) is None
    assert unseen_script(image, scale, blocks, options, ("Latin",), ("eng",)) is None


# An English manual's lines quoting Arabic words (bench/accuracy/pages.json's arabluatex): most of
# the lines hold a poorly read quote, most of the page's text is English read well.
PROSE = "The package reads its input in the order given"
QUOTES = (("The root", "كتب مكتبة كاتب"), ("is written", "قال يقول مقال"), ("as in", "مدينة مدن"))


def quoting_page(quote_confidence: float, prose_confidence: float = 0.95) -> tuple[Image.Image, float, list[Block]]:
    """A page of two lines of English prose and three lines of English quoting Arabic words, drawn
    in DejaVu Sans, and blocks as a page reading gives them: the quoting lines read under 0.6,
    their Arabic words at ``quote_confidence``, the English at ``prose_confidence``."""
    image = Image.new("L", (2000, 900), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 44)
    scale = DPI / 72
    lines = []
    for k in range(5):
        top = 60 + k * 150
        english, arabic = (PROSE, "") if k in (0, 2) else QUOTES[k // 2]
        draw.text((80, top), english, font=font, fill=0)
        if arabic:
            draw.text((80 + draw.textlength(english + " ", font=font), top), arabic, font=font, fill=0)
        box = BBox(60 / scale, (top - 15) / scale, 1900 / scale, (top + 70) / scale)
        words = [Word(w, box, prose_confidence) for w in english.split()]
        words += [Word(w, box, quote_confidence) for w in ("Jlio", "Jgx%") if arabic]
        line_confidence = min(0.55, sum(w.confidence or 0.0 for w in words) / len(words)) if arabic else 0.9
        lines.append(Line(" ".join(w.text for w in words), box, line_confidence, tuple(words)))
    return image, scale, [Block("text", BBox(60 / scale, 40 / scale, 1900 / scale, 850 / scale), "", 0.7, tuple(lines))]


def test_a_page_read_well_but_for_lines_of_quotes_names_no_unseen_script() -> None:
    """Its poor lines read poorly alone too (the Arabic), so they are doubted; but most of its text
    was read well: it is an English page, and the doubt names no script OSD cannot see and no
    package (it named all fourteen, "install them all", on arabluatex's dev pages, CER 0.22-0.44)."""
    image, scale, blocks = quoting_page(0.1)
    assert read_poorly(blocks) and not garbled(blocks)
    warning = unseen_warning(image, scale, blocks, ProcessOptions(), ("Latin",), ("eng",))
    assert warning is not None and warning.startswith(f"{LOW_CONFIDENCE_READING} (3 of 5 lines)"), warning
    assert "tesseract-ocr-script" not in warning and "all-scripts" not in warning, warning


def test_a_page_read_poorly_throughout_names_the_unseen_scripts_whose_models_are_missing() -> None:
    """The same page with its English read poorly too: most of its text is, as on a page in a
    script OSD cannot see read with the Latin model, and the doubt names their packages."""
    image, scale, blocks = quoting_page(0.1, prose_confidence=0.4)
    assert garbled(blocks)
    warning = unseen_warning(image, scale, blocks, ProcessOptions(), ("Latin",), ("eng",))
    assert warning is not None, warning
    installed = {p.stem for p in Path(find_tessdata()).glob("*.traineddata")}
    missing = [s for s in UNSEEN if SCRIPT_MODELS[s].model not in installed]
    assert missing, "every unseen script's model is installed: nothing to name"
    assert all(SCRIPT_MODELS[s].package in warning for s in missing) and "all-scripts" in warning, warning


def test_ocrmypdfs_poster_in_display_type_reads_without_a_doubt() -> None:
    poster = Path(__file__).resolve().parents[1] / "resources" / "poster.pdf"
    page = run(poster.read_bytes()).pages[0]
    assert page.languages == ("eng",)
    assert not page.doubts
    assert "LinnSequencer is a state-of-the-art" in " ".join(b.text for b in page.blocks)
