# ruff: noqa: RUF001 (Cyrillic letters that look Latin are the point)
"""What a page costs beyond its reading: the first look asks OSD only where a band read with
``eng`` does not already say the page is upright English. Calls are counted through the real
Tesseract engine (a wrapper that notes each call and passes it on), on generated English pages and
on pages drawn in real scripts."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from data.script_pages import DEJAVU, DPI, MARGIN, PAGE_H, PAGE_W, script_page
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg
from rtl_pages import print_pdfs

from ocrqueue.documents import (
    EngineCapabilities,
    EngineOutput,
    ProcessOptions,
    RecognitionRequest,
    open_document,
    registered_engine,
)
from ocrqueue.documents.engines import Orientation
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.ocr import whole_page
from ocrqueue.documents.ocr.detect import PROBE_HEIGHT_IN
from ocrqueue.documents.pipeline import OCR_PATH
from ocrqueue.documents.resources import default_resources
from ocrqueue.documents.stages import PageContext, run_stages

from .conftest import Samples
from .helpers import run
from .test_first_look import turned_page
from .test_right_to_left import MIXED, _rendered
from .test_scripts_read import page_png


class NotingTesseract:
    """The real Tesseract engine, noting each call: ("orientation",) or ("recognize", languages)."""

    name = "tesseract"

    def __init__(self, real: TesseractEngine) -> None:
        self.real = real
        self.calls: list[tuple[str, ...]] = []

    @property
    def capabilities(self) -> EngineCapabilities:
        return self.real.capabilities

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        self.calls.append(("orientation",))
        return self.real.orientation(image, dpi)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.calls.append(("recognize", *request.languages))
        return self.real.recognize(image, request)


# Lines of English prose, each with six or more of English's commonest words (detect.plainly_english).
ENGLISH_PROSE = (
    "The page is read with the model of the language that it is in, and not with",
    "the model of the whole script: this is what it costs, and it is the same for",
    "each page of a book that is set in English, as it was before the change was made",
    "to the way it is looked at first. It is the band of a few lines that tells it, and",
    "the band is read in two parts, of which the first is enough for a page of prose.",
) * 2


class SizedTesseract(NotingTesseract):
    """NotingTesseract that also notes the size of each image it is given to read."""

    def __init__(self, real: TesseractEngine) -> None:
        super().__init__(real)
        self.sizes: list[tuple[tuple[str, ...], tuple[int, int]]] = []

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.sizes.append((request.languages, image.size))
        return super().recognize(image, request)


def test_the_first_looks_band_of_an_english_page_is_read_in_its_upper_part_only() -> None:
    """The band's upper part, cut between two lines about its middle, is plainly English already:
    its lower part is not read, and the next reading is the page's."""
    tesseract = SizedTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(ENGLISH_PROSE, "Latin", size=22)), layout_model=False).pages[0]
    assert page.scripts == ("Latin",) and page.languages == ("eng",)
    assert ("orientation",) not in tesseract.calls
    (band, (_, band_height)), (read, (_, page_height)) = tesseract.sizes[:2]
    assert band == read == ("eng",)
    assert band_height <= 0.75 * PROBE_HEIGHT_IN * (page.dpi or 0) < page_height


def test_the_first_looks_band_of_a_page_in_another_language_is_read_whole_in_two_parts() -> None:
    """A band whose upper part is not plainly English is read on below its cut: both parts
    together are the band, and the page is told by all of its words (here, Vietnamese)."""
    tesseract = SizedTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(VIETNAMESE_LINES, "Vietnamese")), layout_model=False).pages[0]
    assert page.scripts[0] == "Vietnamese"
    (upper, (_, upper_height)), (lower, (_, lower_height)) = tesseract.sizes[:2]
    assert upper == lower == ("eng",)
    assert upper_height + lower_height == round(PROBE_HEIGHT_IN * (page.dpi or 0)) // 2 * 2


def test_a_page_of_english_prose_is_not_sent_to_osd(samples: Samples) -> None:
    """A few lines across its middle, read with ``eng``, are plainly English: the page is upright
    Latin, OSD is not asked, and the page is read with ``eng`` as before."""
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(samples.data("english"), mode="ocr", layout_model=False).pages[0]
    assert ("orientation",) not in tesseract.calls
    assert tesseract.calls[0] == ("recognize", "eng")
    assert page.rotation == 0 and page.scripts == ("Latin",) and page.languages == ("eng",)


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_a_page_of_english_prose_lying_turned_is_still_looked_at_by_osd(samples: Samples, rotation: int) -> None:
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(turned_page(samples, rotation), mode="ocr", layout_model=False).pages[0]
    assert ("orientation",) in tesseract.calls
    assert page.rotation == rotation and page.languages == ("eng",)


@pytest.mark.parametrize("script", ["Cyrillic", "Greek"])
def test_a_page_in_another_script_is_still_detected_by_osd(script: str) -> None:
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(page_png(script), mode="ocr", layout_model=False).pages[0]
    assert ("orientation",) in tesseract.calls
    assert page.scripts[0] == script and page.languages[0] == script


# A Russian page of a LaTeX manual: prose in the middle, commands above and below it, in lines of
# their own; its reading has 54 % Cyrillic letters (the Latin model reads some commands as
# Cyrillic look-alikes), 90 % in the lines that hold Cyrillic.
CYRILLIC_WITH_CODE = (
    "sudo apt-get install texlive-lang-cyrillic texlive-latex-extra",
    "git clone https://github.com/example/templates.git",
    "make install PREFIX=/usr/local DESTDIR=build",
    "python3 -m pip install --user pygments",
    "kpsewhich fontenc.sty babel.sty hyphen.cfg",
    "Чтобы установить пакет, выполните в терминале следующую команду.",
    "Затем добавьте в преамбулу документа строки с нужными пакетами.",
    "После этого документ можно собрать обычным образом, как и раньше.",
    "Если шрифты не найдены, обновите базу имён файлов и попробуйте снова.",
    "Для русского языка нужны шрифты с кириллицей и правила переноса.",
    "pdflatex -interaction=nonstopmode document.tex",
    "bibtex document && makeindex document.idx",
    "sudo mktexlsr && updmap-sys --enable Map=cmcyr.map",
    "latexmk -pdf -silent document.tex",
    "tar xzf templates.tar.gz -C ~/texmf/tex/latex",
)


def test_a_cyrillic_page_with_lines_of_code_is_not_sent_for_a_second_look() -> None:
    """Read rightly as Cyrillic, a page whose commands stand in lines of their own holds few
    Cyrillic letters overall but many in its Cyrillic lines: OSD is not asked again after the
    reading (two more looks, about 1 s of one core on a dev scan, for the same answer)."""
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(CYRILLIC_WITH_CODE, "Cyrillic")), layout_model=False).pages[0]
    # Its commands read in Latin letters (engines/latin_taken.py), the page holds more Latin
    # letters than Cyrillic ones: Latin is named first, and it is read with the Cyrillic model.
    assert set(page.scripts) == {"Cyrillic", "Latin"} and page.languages[0] == "Cyrillic"
    read = next(i for i, call in enumerate(tesseract.calls) if call[:2] == ("recognize", "Cyrillic"))
    assert ("orientation",) in tesseract.calls[:read]
    assert ("orientation",) not in tesseract.calls[read:]


# Vietnamese as printed in GNOME's messages: many short syllables, most with tone marks.
VIETNAMESE_LINES = (
    "Không thể mở tập tin vì nó không tồn tại trong thư mục này",
    "Bạn có muốn lưu các thay đổi trước khi đóng cửa sổ không?",
    "Nếu bạn không lưu, các thay đổi của bạn sẽ bị mất vĩnh viễn",
    "Chọn một thư mục trong danh sách bên dưới để tiếp tục",
    "Tập tin này đang được dùng bởi một chương trình khác",
    "Hiện các tập tin ẩn và các tập tin sao lưu trong thư mục",
    "Không thể chuyển đổi sang thư mục đó vì nó không phải là thư mục cục bộ",
    "Tên tập tin không được phép bắt đầu bằng dấu cách",
)


def test_a_vietnamese_page_is_read_with_the_vietnamese_model_without_the_latin_models_reading_between() -> None:
    """Read with ``eng``, a Vietnamese page shows accents and many Vietnamese syllables: it is read
    again with the Vietnamese model straight away, not first with the Latin model (a reading
    thrown away once its letters looked Vietnamese: three readings of the page instead of two)."""
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(VIETNAMESE_LINES, "Vietnamese")), layout_model=False).pages[0]
    assert page.scripts[0] == "Vietnamese" and page.languages[0] == "Vietnamese"
    assert ("recognize", "Latin") not in tesseract.calls
    assert tesseract.calls.count(("recognize", "Vietnamese", "Latin")) == 1


def test_a_vietnamese_page_is_told_by_the_first_looks_band_and_read_once() -> None:
    """The band of a few lines the first look reads with ``eng`` holds Vietnamese syllables: the
    page is upright Vietnamese, OSD is not asked (it calls Vietnamese Latin) and the page is read
    with the Vietnamese model at once, not with ``eng`` first to find out."""
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(VIETNAMESE_LINES, "Vietnamese")), layout_model=False).pages[0]
    assert page.scripts[0] == "Vietnamese" and page.languages == ("Vietnamese", "Latin")
    assert ("orientation",) not in tesseract.calls
    assert tesseract.calls.count(("recognize", "eng")) == 2  # the band, in its two parts
    assert tesseract.calls.count(("recognize", "Vietnamese", "Latin")) == 1


ENGLISH_LINES = (
    "The files in this folder are copied to the server every night",
    "Choose a folder from the list below to go on with the setup",
    "If you do not save them, the changes you made will be lost",
    "This file is used by another program and cannot be opened",
)


def _read_as_called(lines: tuple[str, ...], drawn_in: str, called: str) -> tuple[NotingTesseract, PageContext]:
    """A page of ``lines`` drawn in ``drawn_in``'s font, read through the OCR stages with its first
    look's scripts set to ``called``: the engine's calls, and the page's context at the end."""
    tesseract = NotingTesseract(TesseractEngine())
    data = _png(script_page(lines, drawn_in))
    with registered_engine("tesseract", lambda: tesseract), open_document(data) as document:
        context = PageContext(next(document.pages()), ProcessOptions(layout_model=False), default_resources())
        run_stages(context, OCR_PATH[:2])
        context.scripts = (called,)
        run_stages(context, OCR_PATH[2:])
    return tesseract, context


def test_a_page_called_vietnamese_by_the_first_look_whose_reading_is_not_is_read_with_english() -> None:
    """A page the first look took for Vietnamese whose reading with the Vietnamese model holds no
    Vietnamese letters is read with ``eng`` instead, as the first look's OSD would have had it."""
    tesseract, context = _read_as_called(ENGLISH_LINES, "Latin", "Vietnamese")
    assert ("recognize", "Vietnamese", "Latin") in tesseract.calls
    assert context.languages == ("eng",) and context.scripts == ("Latin",)
    assert "changes you made will be lost" in "\n".join(ln.text for b in context.blocks for ln in b.lines)


ACCENTED_LINES = (
    "Les élèves préfèrent étudier à la bibliothèque où règne le calme.",
    "Über die Brücke gehen täglich viele Fußgänger und Radfahrer.",
    "El niño comió una piña en la mañana del año pasado.",
)


def test_a_page_read_again_with_other_languages_keeps_the_layout_found_beside_its_first_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page of accented Latin is read with ``eng``, then again with the Latin model: its layout
    depends on the straightened page, not on the languages, and is found once (the layout model
    costs about 0.2 s of one core a page)."""
    found: list[object] = []
    original = whole_page._page_layout

    def counted(*args: Any) -> Any:
        found.append(args[0])
        return original(*args)

    monkeypatch.setattr(whole_page, "_page_layout", counted)
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(ACCENTED_LINES, "Latin")), layout_model=False).pages[0]
    assert page.languages == ("Latin",)
    assert [call[1:] for call in tesseract.calls if len(call) > 1][-2:] == [("eng",), ("Latin",)]
    assert len(found) == 1
    assert "bibliothèque" in "\n".join(b.text for b in page.blocks)


KOREAN_LINES = (
    "터미널 창의 글꼴과 색상은 프로필에서 바꿀 수 있습니다",
    "새 탭을 열려면 파일 메뉴에서 새 탭을 누르십시오",
    "명령이 끝나면 창을 닫거나 다른 명령을 입력하십시오",
    "복사한 글은 편집 메뉴의 붙여넣기로 넣을 수 있습니다",
    "키보드 바로 가기는 기본 설정에서 바꿀 수 있습니다",
    "터미널을 다시 설정하면 화면의 글이 모두 지워집니다",
)


def test_a_page_the_first_look_gave_another_script_is_not_asked_whether_it_is_chinese() -> None:
    """A Korean page the first look called Devanagari is read poorly; its poor lines are not read
    with the Chinese model (it reads Hangul as Han, and a dev page was then read whole by
    RapidOCR for nothing): the unseen scripts' probe finds Hangul."""
    tesseract, context = _read_as_called(KOREAN_LINES, "Hangul", "Devanagari")
    assert ("recognize", "Devanagari", "Latin") in tesseract.calls
    assert not [call for call in tesseract.calls if "chi_sim" in call]
    assert context.languages[0] == "Hangul" and context.source == "tesseract"


def test_persian_lines_on_a_page_called_latin_are_found_without_asking_for_chinese(tmp_path: Path) -> None:
    """The poorly read lines of a page the first look calls Latin are asked which script they are
    (OSD on them) before whether they are Chinese: Persian lines are found so, and no line is read
    with the Chinese model (Tesseract's chi_sim read a dev Persian page's lines as Han, and the
    whole page was read again by RapidOCR before its Arabic was found)."""
    tesseract = NotingTesseract(TesseractEngine())
    pdf = print_pdfs((MIXED,), tmp_path)[MIXED.name]
    with registered_engine("tesseract", lambda: tesseract), open_document(_rendered(pdf)) as document:
        context = PageContext(next(document.pages()), ProcessOptions(), default_resources())
        run_stages(context, OCR_PATH[:2])
        context.scripts = ("Latin",)
        run_stages(context, OCR_PATH[2:])
    assert context.languages[0] == "Arabic"
    assert not [call for call in tesseract.calls if "chi_sim" in call]


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(DPI, DPI))
    return out.getvalue()


class UnsureTesseract(NotingTesseract):
    """The real Tesseract engine, noting each call, whose OSD answers no surer than ``confidence``:
    as it answers on a scan's middle square (dev Greek and Cyrillic scans: 1.6 to 4.6)."""

    def __init__(self, real: TesseractEngine, confidence: float = 3.0) -> None:
        super().__init__(real)
        self.confidence = confidence

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        found = super().orientation(image, dpi)
        return None if found is None else replace(found, confidence=min(found.confidence, self.confidence))


def test_an_unsure_upright_answer_naming_greek_is_taken_without_a_second_square() -> None:
    """OSD's answer on the middle square, upright, agreeing with the lines running across and
    naming Greek, is taken though under ``OSD_SURE``: the densest square (0.26-0.32 s of one core on
    a dev scan) is not asked for the same answer."""
    tesseract = UnsureTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(page_png("Greek"), layout_model=False).pages[0]
    assert page.rotation == 0 and page.scripts[0] == "Greek" and page.languages[0] == "Greek"
    read = next(i for i, call in enumerate(tesseract.calls) if call[:2] == ("recognize", "Greek"))
    assert tesseract.calls[:read].count(("orientation",)) == 1


# Lines of commands: Latin letters, but not English prose for the first look's band.
COMMAND_LINES = tuple(line for line in CYRILLIC_WITH_CODE if line.isascii())


def test_an_unsure_upright_answer_naming_latin_still_asks_the_densest_square() -> None:
    """OSD names Latin for scripts it reads poorly (a dev Thai scan, a Gujarati one): an unsure
    Latin answer is checked against the densest square, as before."""
    tesseract = UnsureTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(_png(script_page(COMMAND_LINES, "Latin")), layout_model=False).pages[0]
    assert page.rotation == 0 and page.scripts[0] == "Latin"
    # The band (read in its two parts: not plainly English), then OSD twice, then the page.
    first = tesseract.calls.index(("orientation",))
    assert tesseract.calls[:first] == [("recognize", "eng")] * 2
    assert tesseract.calls[first : first + 3] == [("orientation",), ("orientation",), ("recognize", "eng")]


# A reference list as LaTeX sets it: each entry's web address in a typewriter face on a line of its
# own, which Tesseract reads letter for letter at a word confidence of 0.0-0.6 (at 20 px).
ADDRESSES = (
    "https://www.latex-project.org/publications/",
    "https://github.com/latex3/latex2e/issues/",
    "https://www.ctan.org/pkg/babel",
    "https://latex-project.org/help/documentation/",
)
TYPEWRITER = "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Regular.otf"  # fonts-urw-base35


def reference_list_page() -> Image.Image:
    """English prose, then a reference list with a typewriter web address under each entry."""
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    draw = ImageDraw.Draw(image)
    body, typewriter = ImageFont.truetype(DEJAVU, 22), ImageFont.truetype(TYPEWRITER, 20)
    y = MARGIN
    for line in ENGLISH_PROSE:
        draw.text((MARGIN, y), line, font=body, fill="black")
        y += 46
    for i, address in enumerate(ADDRESSES, 1):
        draw.text(
            (MARGIN, y + 30),
            f"[{i}] The LaTeX Project team: a report on the work of the year.",
            font=body,
            fill="black",
        )
        draw.text((MARGIN + 40, y + 76), address, font=typewriter, fill="black")
        y += 102
    return image


@pytest.mark.parametrize("variant", ["clean", "scan"])
def test_lines_of_web_addresses_read_unsurely_are_not_probed_for_other_scripts(variant: str) -> None:
    """Before: the addresses, read right but unsurely, were the page's poor lines: OSD was asked
    about them stacked and one by one, and they were read again with the Chinese model (and the
    Korean and Japanese ones where OSD named nothing). Now the page costs its band and its reading."""
    image = reference_list_page()
    data = scan_jpeg(image, "reference-list", dpi=DPI) if variant == "scan" else _png(image)
    tesseract = NotingTesseract(TesseractEngine())
    with registered_engine("tesseract", lambda: tesseract):
        page = run(data).pages[0]
    assert tesseract.calls == [("recognize", "eng")] * 2
    assert page.languages == ("eng",)
    assert "ctan.org/pkg/babel" in "".join(line.text for block in page.blocks for line in block.lines).replace(" ", "")
