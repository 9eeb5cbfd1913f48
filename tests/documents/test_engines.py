"""The engine interface: a plugin engine registered by name, and formula regions with LaTeX."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PIL import Image

from ocrqueue.documents import (
    EngineCapabilities,
    EngineOutput,
    Line,
    PipelineResources,
    ProcessOptions,
    RecognitionRequest,
    get_engine,
    registered_engine,
)
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.detector import LayoutBox

from .conftest import Samples
from .helpers import run


@dataclass
class FormulaEngine:
    """Like a vision model: answers formula crops with LaTeX, leaves the rest to Tesseract."""

    name: str = "fake-vlm"

    def __post_init__(self) -> None:
        self.tasks: list[str] = []

    @property
    def capabilities(self) -> EngineCapabilities:
        tesseract = get_engine("tesseract").capabilities
        return replace(tesseract, reads_regions=True, detects_orientation=False, detects_script=False)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.tasks.append(request.task)
        if request.task == "formula":
            box = BBox(0, 0, image.width, image.height)
            return EngineOutput((Line("E = mc2", box, 0.9),), markup="E = mc^2")
        return get_engine("tesseract").recognize(image, request)


class FormulaLayout:
    """A layout model that marks the page's second text line (pixels at 200 dpi) as a formula."""

    def detect(self, image: Image.Image) -> list[LayoutBox]:
        return [LayoutBox("formula", (140, 260, 1300, 320), 0.9)]


def test_plugin_engine_gets_formula_crops_and_its_latex_reaches_markdown(samples: Samples) -> None:
    engine = FormulaEngine()
    with registered_engine("fake-vlm", lambda: engine), PipelineResources(layout_model=FormulaLayout) as resources:
        result = run(samples.data("english"), resources, engine="fake-vlm")
    page = result.pages[0]
    assert page.source == "fake-vlm"
    assert "formula" in engine.tasks and "text" in engine.tasks
    kinds = [b.type for b in page.blocks]
    assert kinds[:3] == ["title", "formula", "text"]
    formula = page.blocks[1]
    assert formula.latex == "E = mc^2"
    assert formula.text == "E = mc2"
    assert "$$\nE = mc^2\n$$" in result.to_markdown()
    assert "Invoices must be submitted" not in page.blocks[2].text  # the formula's area is not read twice


def test_options_round_trip() -> None:
    options = ProcessOptions(mode="ocr", engine="rapidocr", languages=("eng", "chi_sim"), dpi=300, layout_model=False)
    assert ProcessOptions.from_dict(options.to_dict()) == options
