"""A ruled table the layout model takes for a figure is still a table when the words read in its
grid fill it row by row (a scanned form's table of labels, ruled in grey hairlines, came back as a
figure holding "| Field Entry | Surname ..."); a chart's grid, its labels round it, stays a figure."""

from __future__ import annotations

from collections.abc import Iterator
from io import BytesIO

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.ocr import whole_page
from ocrqueue.documents.resources import PipelineResources

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
LABELS = ["Surname", "Given names", "Date of birth", "Street", "Postcode", "Town", "Telephone"]
LEFT, TOP, RIGHT, ROW, SPLIT = 240, 700, 2300, 80, 1600  # the table's frame, pixels at 300 dpi
FIGURE_PAD = 20  # the model's box reaches this far round what it calls a figure


class FigureThere:
    """A layout model that calls one box of the page a figure."""

    def __init__(self, box: tuple[int, int, int, int]) -> None:
        self.box = box

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        return [LayoutBox("figure", self.box, 0.9)]


@pytest.fixture
def model_asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The model is asked about every page (the gate asks it on the dev form for its other parts)."""
    monkeypatch.setattr(whole_page, "needs_layout_model", lambda *args: True)
    yield


def _png(image: Image.Image) -> bytes:
    out = BytesIO()
    image.save(out, format="PNG", dpi=(300, 300))
    return out.getvalue()


def _form() -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A form at 300 dpi: a title, then a table of labels with a column to fill in, its frame dark
    grey and the rules inside it light grey hairlines, as LibreOffice prints one."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SERIF, 40)
    draw.text((LEFT, 400), "Application form", font=ImageFont.truetype(SERIF, 72), fill=0)
    rows = [("Field", "Entry"), *((label, "") for label in LABELS)]
    bottom = TOP + ROW * len(rows)
    for r, (label, entry) in enumerate(rows):
        y = TOP + r * ROW
        if r:
            draw.line((LEFT, y, RIGHT, y), fill=150, width=2)
        draw.text((LEFT + 20, y + 18), label, font=font, fill=0)
        draw.text((SPLIT + 20, y + 18), entry, font=font, fill=0)
    draw.line((SPLIT, TOP, SPLIT, bottom), fill=150, width=2)
    draw.rectangle((LEFT, TOP, RIGHT, bottom), outline=90, width=3)
    return image, (LEFT - FIGURE_PAD, TOP - FIGURE_PAD, RIGHT + FIGURE_PAD, bottom + FIGURE_PAD)


def _chart() -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A bar chart on a ruled grid of five rows and four columns, its axis labels round the grid."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SERIF, 36)
    x0, y0, x1, y1 = 600, 800, 2000, 1800
    for k in range(6):
        y = y0 + k * (y1 - y0) // 5
        draw.line((x0, y, x1, y), fill=0, width=3)
        draw.text((x0 - 120, y - 20), f"{(5 - k) * 20}", font=font, fill=0)
    for k in range(5):
        x = x0 + k * (x1 - x0) // 4
        draw.line((x, y0, x, y1), fill=0, width=3)
    for k, height in enumerate([600, 400, 800, 300]):
        left = x0 + 60 + k * (x1 - x0) // 4
        draw.rectangle((left, y1 - height, left + 200, y1), fill=120)
        draw.text((left + 40, y1 + 30), f"Q{k + 1}", font=font, fill=0)
    draw.text((x0, y1 + 120), "Revenue by quarter, in thousands", font=font, fill=0)
    return image, (x0 - 200, y0 - 60, x1 + 60, y1 + 200)


def test_a_table_the_model_calls_a_figure_is_read_as_a_table(model_asked: None) -> None:
    image, box = _form()
    with PipelineResources(layout_model=lambda: FigureThere(box)) as resources:
        blocks = run(_png(image), resources).pages[0].blocks
    assert not [b for b in blocks if b.type == "figure"]
    tables = [b.table.grid() for b in blocks if b.table is not None]
    assert tables == [[["Field", "Entry"], *([label, ""] for label in LABELS)]]


def test_a_charts_grid_inside_a_figure_stays_a_figure(model_asked: None) -> None:
    image, box = _chart()
    with PipelineResources(layout_model=lambda: FigureThere(box)) as resources:
        blocks = run(_png(image), resources).pages[0].blocks
    assert [b.type for b in blocks] == ["figure"]


TOTAL = "Total due 48.07"


def test_text_inside_the_figure_beside_the_grid_is_kept(model_asked: None) -> None:
    """A receipt the layout model calls a figure holds its total below the items' grid: taken for
    the grid's table, the figure lost it."""
    image, (x0, y0, x1, y1) = _form()
    ImageDraw.Draw(image).text((LEFT + 20, y1 + 40), TOTAL, font=ImageFont.truetype(SERIF, 40), fill=0)
    with PipelineResources(layout_model=lambda: FigureThere((x0, y0, x1, y1 + 140))) as resources:
        blocks = run(_png(image), resources).pages[0].blocks
    types = [b.type for b in blocks]
    assert "table" in types and types.index("table") < len(types) - 1, types
    assert " ".join(blocks[-1].text.split()) == TOTAL
