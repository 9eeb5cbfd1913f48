"""A flowchart the layout model calls a table is read as text, box by box (dev InDesign guideline
pages: read as one table, or as one text block when its lines held no column running through all
of them, the boxes' words were joined straight across the chart: "Stimulated Tg and negative
imaging Continue surveillance with unstimulated Tg, Non-resectable tumors Suppress TSH ...")."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.ocr import whole_page
from ocrqueue.documents.resources import PipelineResources

from .helpers import png_bytes, run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DPI = 300
LINE = 56  # pixels from one line of a box to the next
# The chart's steps: what each box says, a line a list, by column; one row of boxes per step.
STEPS = [
    (
        ["Rising marker", "and negative", "imaging"],
        ["Suppress the", "hormone"],
        ["Continue the follow-up with", "ultrasound scans and other", "imaging as it is indicated"],
    ),
    (
        ["Tumour that", "cannot be", "removed"],
        ["Consider", "radiotherapy"],
        ["Treat again only when the", "first treatment of them", "gave a good response"],
    ),
    (
        ["Disease seen", "far from the", "first site"],
        ["Local", "treatment"],
        ["Systemic therapy when the", "local treatment is not", "possible or has failed"],
    ),
]
COLUMNS = (240, 760, 1300)  # left edges of the three boxes of the first row
STAGGER = 250  # pixels each row of boxes stands right of the one above: no gap runs down the chart
JOIN = 100  # pixels: a line joining two boxes, shorter than a rule (0.5 in), so no blank to fill in either
TOP, ROW = 500, 330


class TableThere:
    """A layout model that calls one box of the page a table."""

    def __init__(self, box: tuple[int, int, int, int]) -> None:
        self.box = box

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        return [LayoutBox("table", self.box, 0.9)]


@pytest.fixture
def model_asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The model is asked about the page whatever the gate says."""
    monkeypatch.setattr(whole_page, "needs_layout_model", lambda *args: True)
    yield


def _flowchart() -> tuple[Image.Image, tuple[int, int, int, int]]:
    """Three rows of three boxes at 300 dpi, joined by lines left to right, each box a few short
    lines, each row a little right of the one above; and the box round them all that the model
    calls a table."""
    image = Image.new("L", (2480, 3508), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 40)
    draw.text((240, 300), "Follow-up after treatment", font=ImageFont.truetype(SANS, 64), fill=0)
    for r, step in enumerate(STEPS):
        y = TOP + r * ROW
        ends = []
        for x, lines in zip((c + r * STAGGER for c in COLUMNS), step, strict=True):
            for k, text in enumerate(lines):
                draw.text((x + 20, y + 20 + k * LINE), text, font=font, fill=0)
            right = x + 40 + max(round(draw.textlength(t, font=font)) for t in lines)
            draw.line((x, y, x, y + 40 + LINE * len(lines)), fill=0, width=4)  # a bracket before the box
            ends.append((x, right))
        for (_, right), (x_next, _) in itertools.pairwise(ends):
            mid, start = y + 20 + LINE, (right + x_next - JOIN) // 2
            draw.line((start, mid, start + JOIN, mid), fill=0, width=3)
    bottom = TOP + len(STEPS) * ROW
    return image, (200, TOP - 30, 2400, bottom)


def test_a_flowchart_the_model_calls_a_table_is_read_box_by_box(model_asked: None) -> None:
    image, box = _flowchart()
    with PipelineResources(layout_model=lambda: TableThere(box)) as resources:
        blocks = run(png_bytes(image, DPI), resources).pages[0].blocks
    assert not [b for b in blocks if b.table is not None], [b.text for b in blocks if b.table is not None]
    # Each block holds the words of one box (a line joining two boxes may come back as a mark,
    # "—", beside a box's line; a box may be read as more than one paragraph).
    boxes = [" ".join(lines).split() for step in STEPS for lines in step]
    owner = {w: k for k, words in enumerate(boxes) for w in words if sum(w in b for b in boxes) == 1}
    read = [[w for w in b.text.split() if w in owner] for b in blocks]
    assert all(len({owner[w] for w in words}) <= 1 for words in read), [b.text for b in blocks]
    assert sorted({w for words in read for w in words}) == sorted(owner)
