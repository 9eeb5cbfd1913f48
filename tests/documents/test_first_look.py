"""Which engine takes the first look (orientation and script): the one chosen by name when it
detects orientation, else the registry's engine that does (Tesseract's OSD), and nothing else of
Tesseract runs for a page read by an engine asked for no languages (a vision model)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import pytest
from PIL import Image

from ocrqueue.documents import EngineCapabilities, EngineOutput, Line, RecognitionRequest, registered_engine
from ocrqueue.documents.engines import Orientation
from ocrqueue.documents.engines.tesseract import TesseractEngine
from ocrqueue.documents.geometry import BBox

from .conftest import Samples
from .helpers import run

SEES = EngineCapabilities(scripts=frozenset({"Latin", "Han"}), reads_regions=True)


class CountingTesseract:
    """The real Tesseract engine, noting each call made to it."""

    name = "tesseract"

    def __init__(self) -> None:
        self.real = TesseractEngine()
        self.calls: list[str] = []

    @property
    def capabilities(self) -> EngineCapabilities:
        return self.real.capabilities

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        self.calls.append("orientation")
        return self.real.orientation(image, dpi)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.calls.append("recognize")
        return self.real.recognize(image, request)


@dataclass
class SpyModel:
    """Like a vision model: reads region crops, is asked for no languages, answers one line a crop.
    Declaring orientation detection, it answers the turn it is told the page needs."""

    capabilities: EngineCapabilities
    turn: int = 0
    name: str = "spy"
    looks: list[int] = field(default_factory=list)

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None:
        self.looks.append(dpi)
        return Orientation(self.turn, 9.0, "Latin", 9.0)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        return EngineOutput((Line("read by the spy", BBox(0, 0, image.width, image.height), 0.9),))


def turned_page(samples: Samples, rotation: int) -> bytes:
    upright = Image.open(io.BytesIO(samples.data("english")))
    out = io.BytesIO()
    upright.rotate(rotation, expand=True).save(out, "PNG", dpi=upright.info.get("dpi", (200, 200)))
    return out.getvalue()


@pytest.mark.parametrize("detects", [True, False])
def test_the_first_look_is_the_named_engines_when_it_detects_orientation_else_tesseracts(
    samples: Samples, detects: bool
) -> None:
    """A page lying on its side is always turned upright before its layout is analysed: by the
    engine itself when it says it can, else Tesseract's OSD is asked (and only that of Tesseract)."""
    tesseract = CountingTesseract()
    capabilities = EngineCapabilities(
        scripts=SEES.scripts, reads_regions=True, detects_orientation=detects, detects_script=detects
    )
    spy = SpyModel(capabilities, turn=90)
    with registered_engine("tesseract", lambda: tesseract), registered_engine("spy", lambda: spy):
        page = run(turned_page(samples, 90), engine="spy", mode="ocr", layout_model=False).pages[0]
    assert page.source == "spy" and page.rotation == 90
    assert "read by the spy" in page.blocks[0].text
    assert len(spy.looks) == (1 if detects else 0)
    assert tesseract.calls == ([] if detects else ["orientation"])


def test_without_an_engine_that_detects_orientation_the_page_is_read_as_it_lies(samples: Samples) -> None:
    spy = SpyModel(SEES)
    with (
        registered_engine("tesseract", lambda: SpyModel(SEES, name="tesseract")),
        registered_engine("spy", lambda: spy),
    ):
        page = run(turned_page(samples, 90), engine="spy", mode="ocr", layout_model=False).pages[0]
    assert page.source == "spy" and page.rotation == 0 and not spy.looks
