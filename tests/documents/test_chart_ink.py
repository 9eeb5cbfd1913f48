"""A chart's ink does not come back as text (ocr/charts.py): a gnuplot-style line chart on a slide
(dashed grid, a curve of crosses lying along its axis, tick labels beside the frame) that the
layout model does not box was cut by XY-cut into strips at its grid lines, and Tesseract's readings
of its strokes ("nnn nn nbn nnn", "0.012---.- ----b <2") came back as text blocks at confidence
0.0-0.3, as on a dev slide's gnuplot chart. It is a figure: its legend is its text, the strokes'
readings are dropped, and the tick labels beside it are read on their own."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.straighten import ink_pieces
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.ocr.charts import drawing_boxes, without_strokes

from .helpers import png_bytes, run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DPI = 300
RED, BLUE = (230, 40, 20), (20, 50, 230)
FRAME = (600, 630, 2840, 2300)  # the plot's frame, pixels
TITLE = "Word frequency over time"
Y_LABELS = [f"{0.002 * k:.3f}" for k in range(1, 11)]


def _chart_slide() -> Image.Image:
    """A 4:3 slide at 300 dpi: a title, and a line chart of two series as gnuplot draws one (a
    frame, dashed grid lines, ticks outside, a red curve of plus signs, a blue one of crosses that
    lies along the axis for most of its length), its legend inside the frame."""
    image = Image.new("RGB", (3334, 2500), "white")
    draw = ImageDraw.Draw(image)
    small = ImageFont.truetype(SANS, 42)
    draw.text((300, 180), TITLE, font=ImageFont.truetype(SANS, 110), fill="black")
    x0, y0, x1, y1 = FRAME
    for k in range(1, 8):
        x = x0 + k * (x1 - x0) // 8
        for y in range(y0, y1, 20):
            draw.line((x, y, x, y + 10), fill="black", width=2)
    for k in range(1, 10):
        y = y0 + k * (y1 - y0) // 10
        for x in range(x0, x1, 20):
            draw.line((x, y, x + 10, y), fill="black", width=2)
    draw.rectangle(FRAME, outline="black", width=3)
    for k in range(9):
        x = x0 + k * (x1 - x0) // 8
        draw.line((x, y1, x, y1 + 12), fill="black", width=3)
        draw.text((x - draw.textlength(str(50 * k), font=small) / 2, y1 + 15), str(50 * k), font=small, fill="black")
    for k, label in enumerate(["0.000", *Y_LABELS]):
        y = y1 - k * (y1 - y0) // 10
        draw.line((x0 - 12, y, x0, y), fill="black", width=3)
        draw.text((x0 - 20 - draw.textlength(label, font=small), y - 22), label, font=small, fill="black")
    for series, (height, colour) in enumerate(((1400, RED), (1150, BLUE))):
        points = []
        for i in range(361):
            t = i / 360
            bump = 250 * math.exp(-((t - 0.6) ** 2) / 0.00005) * (1 - series)
            peak = height * math.exp(-((t - 0.03 - 0.01 * series) ** 2) / 0.0002)
            points.append((x0 + t * (x1 - x0), y1 - peak - bump))
        draw.line(points, fill=colour, width=8)
        for px, py in points[:: 3 - 2 * series]:
            if series == 0:
                draw.line((px - 18, py, px + 18, py), fill=colour, width=6)
                draw.line((px, py - 18, px, py + 18), fill=colour, width=6)
            else:
                draw.line((px - 16, py - 16, px + 16, py + 16), fill=colour, width=8)
                draw.line((px - 16, py + 16, px + 16, py - 16), fill=colour, width=8)
    draw.text((2350, 670), "MAINICHI", font=small, fill=RED)
    draw.text((2350, 720), "NIKKEI", font=small, fill=BLUE)
    return image


@pytest.mark.parametrize("variant", ["clean", "scan"])
def test_a_chart_the_model_does_not_box_is_a_figure_without_the_strokes_readings(variant: str) -> None:
    image = _chart_slide()
    data = png_bytes(image, DPI) if variant == "clean" else scan_jpeg(image, "chart-slide")
    result = run(data, layout_model=False)  # as on a page where the model boxes nothing
    blocks = result.pages[0].blocks
    frame = BBox(*FRAME).scaled(72 / DPI)
    figures = [b for b in blocks if b.type == "figure"]
    assert len(figures) == 1, [(b.type, b.text) for b in blocks]
    chart = figures[0]
    assert abs(chart.bbox.x0 - frame.x0) < 6 and abs(chart.bbox.x1 - frame.x1) < 6
    assert abs(chart.bbox.y0 - frame.y0) < 6 and abs(chart.bbox.y1 - frame.y1) < 6
    assert chart.text.startswith("MAINICHI")  # the legend (its blue NIKKEI is read low on the scan)
    # No text block in the plot, and none of the words read low on its strokes in the figure.
    inside = [
        b for b in blocks if b is not chart and frame.x0 < b.bbox.cx < frame.x1 and frame.y0 < b.bbox.cy < frame.y1
    ]
    assert not inside, [(b.type, b.text) for b in inside]
    assert all((w.confidence or 0) >= 0.5 for ln in chart.lines for w in ln.words), chart.text
    texts = [ln.text for b in blocks if b is not chart for ln in b.lines]
    assert TITLE in texts
    assert sum(label in texts for label in Y_LABELS) >= 8, texts
    markdown = result.to_markdown()
    assert "![MAINICHI](page1-figure1.png)" in markdown


def _word(text: str, x: float, confidence: float) -> Word:
    return Word(text, BBox(x, 100, x + 30, 110), confidence)


def test_a_line_run_from_a_tick_label_into_the_grid_goes_whole_and_a_legend_line_stays() -> None:
    """A line mostly of the strokes' readings goes whole (its label is read again on its own), a
    line mostly of words read well loses only the strokes' readings."""
    chart = (100, 0, 500, 400)
    label_into_grid = Line(
        "0.012---.- ----b <2 2-2-2",
        BBox(40, 100, 250, 110),
        0.1,
        (_word("0.012---.-", 40, 0.26), _word("----b", 110, 0.05), _word("<2", 150, 0.1), _word("2-2-2", 200, 0.1)),
    )
    legend = Line(
        "MAINICHI —+—", BBox(300, 100, 370, 110), 0.6, (_word("MAINICHI", 300, 0.91), _word("—+—", 340, 0.77))
    )
    outside = Line("ee ee", BBox(600, 100, 660, 110), 0.1, (_word("ee", 600, 0.1), _word("ee", 630, 0.1)))
    kept = without_strokes([label_into_grid, legend, outside], [chart])
    assert [ln.text for ln in kept] == ["MAINICHI", "ee ee"]


def _ink(image: Image.Image) -> npt.NDArray[np.bool_]:
    return np.asarray(image.convert("L")) < 128


def test_a_frame_round_text_is_no_drawing_a_chart_is() -> None:
    """A frame drawn round text has all its ink at its edges: whatever its text reads as (a script
    read with another's model comes back as words read low), it is never taken for a chart; the
    chart's curves and grid run into its frame."""
    chart = _chart_slide()
    framed = Image.new("L", chart.size, 255)
    draw = ImageDraw.Draw(framed)
    draw.rectangle(FRAME, outline=0, width=3)
    draw.text((FRAME[0] + 60, FRAME[1] + 60), "שלום עולם, זוהי שורה של טקסט", font=ImageFont.truetype(SANS, 60), fill=0)
    assert drawing_boxes(ink_pieces(_ink(framed)), DPI) == []
    [box] = drawing_boxes(ink_pieces(_ink(chart)), DPI)
    assert all(abs(a - b) <= 25 for a, b in zip(box, FRAME, strict=True)), box
