"""What a page costs beyond its reading: the first look asks OSD only where a band read with
``eng`` does not already say the page is upright English. Calls are counted through the real
Tesseract engine (a wrapper that notes each call and passes it on), on generated English pages and
on pages drawn in real scripts."""

from __future__ import annotations

import pytest
from PIL import Image

from ocrqueue.documents import EngineCapabilities, EngineOutput, RecognitionRequest, registered_engine
from ocrqueue.documents.engines import Orientation
from ocrqueue.documents.engines.tesseract import TesseractEngine

from .conftest import Samples
from .helpers import run
from .test_first_look import turned_page
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
