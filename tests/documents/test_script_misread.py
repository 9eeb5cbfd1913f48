"""The script of a page OSD names wrongly. A page OSD takes to lie on its side, and is not
believed about, is not read for the script OSD named at that turn: a scanned Korean page of short
paragraphs with wide gaps between them (as GNOME's help prints) was called Arabic turned 270
degrees in its middle square, kept upright, and read with the Arabic model. The sentences are
real: Korean translations from apt's message catalog (/usr/share/locale/ko/LC_MESSAGES/apt.mo),
drawn in Noto Sans CJK KR at 11 pt on A4 at 300 dpi, then scanned by
tests/data/realpages.scan_jpeg with seeds under which OSD said Arabic before."""

from __future__ import annotations

import io

import pytest
from data.realpages import scan_jpeg
from data.script_pages import DPI as SCRIPT_DPI
from data.script_pages import NOTO_CJK, script_page
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents import EngineCapabilities, EngineOutput, RecognitionRequest
from ocrqueue.documents.engines import Orientation
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.ocr.detect import look, other_scripts

from .test_scripts_read import PAGES

SENTENCES = (
    "캐시가 동기화되지 않았습니다. 패키지 파일을 상호 참조할 수 없습니다",
    "데이터 소켓을 연결할 수 없습니다. 연결 시간이 초과되었습니다",
    "이전에 다운로드 받았던 파일을 지우시겠습니까?",
    "하위 프로세스에 대한 파이프를 만드는데 실패했습니다",
    "내부 오류, 문제 해결 프로그램이 무언가를 망가뜨렸습니다",
    "해당되는 빌드 의존성을 검사할 패키지를 최소한 하나 지정해야 합니다",
    "해당되는 소스 패키지를 가져올 패키지를 최소한 하나 지정해야 합니다",
    "현재 갖고 있는 다른 디스크에도 이 과정을 반복하십시오.",
    "이 상황을 해결하는데 다음 정보가 도움이 될 수도 있습니다:",
    "삭제를 할 수 없으므로 자동 삭제를 실행하지 못합니다",
    "오류만 중요합니다. 이 오류를 고친 다음에 설치를 다시 시도하십시오",
    "오류가 중복되어 나타날 수 있습니다. 하지만 상관없고, 이 메세지 위에 나온",
)
DPI = 300
SIZE = 46  # 11 pt at 300 dpi
WIDTH, HEIGHT, MARGIN = 2480, 3508, 236  # A4, 20 mm margins
GAP = 120  # between paragraphs of one line


def korean_page() -> Image.Image:
    """Lines of the sentences wrapped to the text width, a gap under each."""
    font = ImageFont.truetype(NOTO_CJK, SIZE, index=1, layout_engine=ImageFont.Layout.RAQM)
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    words = " ".join(SENTENCES * 4).split()
    y, line = MARGIN, ""
    while words and y < HEIGHT - MARGIN - 100:
        word = words.pop(0)
        if draw.textlength(f"{line} {word}", font=font) > WIDTH - 2 * MARGIN:
            draw.text((MARGIN, y), line, font=font, fill="black")
            y += round(SIZE * 1.45) + GAP
            line = word
        else:
            line = f"{line} {word}".strip()
    return image


def scanned(seed: int) -> bytes:
    return scan_jpeg(korean_page(), f"made-ko#{seed}", DPI)


@pytest.mark.parametrize("seed", [3, 6])
def test_a_script_named_for_a_page_on_its_side_does_not_count_when_it_is_kept_upright(seed: int) -> None:
    first = look(Image.open(io.BytesIO(scanned(seed))), DPI, TesseractEngine())
    assert (first.rotation, first.scripts) == (0, ("Hangul",))


class ScriptedOsd:
    """Tesseract's engine, but OSD answers as it did on a dev Hebrew page it called Thai: Thai on
    the whole ink and the densest square (the first two looks), then on the squares across the
    page Hebrew upright and Bengali on its side, in turn."""

    def __init__(self) -> None:
        self.real = TesseractEngine()
        self.looks = 0

    @property
    def capabilities(self) -> EngineCapabilities:
        return self.real.capabilities

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        self.looks += 1
        if self.looks <= 2:
            return Orientation(0, 12.0, "Thai", 0.4)
        return Orientation(0, 12.0, "Hebrew", 1.2) if self.looks % 2 else Orientation(270, 2.0, "Bengali", 3.0)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        return self.real.recognize(image, request)


def test_the_second_look_asks_squares_across_the_page_and_counts_only_upright_answers() -> None:
    """A page read for the script OSD named (Thai) that came back without it is read again for
    the scripts OSD names upright elsewhere: when the whole ink and the densest square say Thai
    again, the squares across the page do."""
    first, second, third = PAGES["Hebrew"][2]
    page = script_page((f"{first} {second}", f"{third} {first}") * 10, "Hebrew")
    assert other_scripts(page, SCRIPT_DPI, ScriptedOsd(), "Thai", squares=True) == ("Hebrew",)
