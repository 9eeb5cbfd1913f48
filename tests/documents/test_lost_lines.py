"""Lines the engine's page reading leaves out, read again from the bands of ink no line covers
(ocr/whole_page.py, ``_lost_lines``), with an engine that answers as Tesseract did."""

from __future__ import annotations

import numpy as np
from PIL import Image

from ocrqueue.documents.engines import EngineOutput, RecognitionRequest
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.raster import RasterLayout
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.ocr.assemble import OcrPage
from ocrqueue.documents.ocr.whole_page import _lost_lines

DPI = 300


class BlindToBlocks:
    """Reads nothing of a band read as a block (PSM 6), a line of it read alone as a line: what
    Tesseract did with the two-line first paragraph of a dev Arabic scan (gedit-ar p. 2)."""

    capabilities = None
    name = "blind-to-blocks"

    def __init__(self) -> None:
        self.tasks: list[tuple[str, tuple[int, int]]] = []

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.tasks.append((request.task, image.size))
        if request.task != "line":
            return EngineOutput(())
        box = BBox(0.0, 0.0, float(image.width), float(image.height))
        return EngineOutput((Line("سطر مقروء", box, 0.9, (Word("مقروء", box, 0.9), Word("سطر", box, 0.9))),))


def test_a_two_line_band_read_as_a_block_that_gives_nothing_is_read_as_two_lines() -> None:
    pixels = np.full((400, 600), 255, np.uint8)
    pixels[50:90, 20:580] = 0  # the line the page reading found
    pixels[150:190, 20:580] = 0  # two lines it left out, 4 px apart: one band of ink
    pixels[194:234, 20:580] = 0
    straight = deskew(Image.fromarray(pixels), DPI)
    engine = BlindToBlocks()
    page = OcrPage(0, 400 * 72 / DPI, straight, None, DPI, DPI / 72, engine, ("Arabic", "eng"))  # type: ignore[arg-type]
    layout = RasterLayout([(0, 0, 600, 400)], [], [], np.zeros(pixels.shape, bool))
    found = Line("سطر أول", BBox(20, 50, 580, 90), 0.9, (Word("أول", BBox(20, 50, 300, 90), 0.9),))
    lost = _lost_lines(page, (found,), layout)
    assert [task for task, _ in engine.tasks] == ["cell", "line", "line"]
    assert len(lost) == 2
    tops = sorted(ln.bbox.y0 for ln in lost)
    assert tops[0] < 160 and 180 < tops[1] < 200, tops
