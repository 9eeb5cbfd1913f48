"""The text-layer path sees vector drawings: a chart drawn with paths (in a form XObject, as R and
LaTeX place one, or on the page itself) is a figure block with a crop and its labels as lines, never
loose text blocks or a table of tab characters."""

from __future__ import annotations

import io
from pathlib import Path

from generate import CHART_LABELS, CHART_TITLE, ENGLISH, TABLE, vector_chart_pdf
from PIL import Image

from .helpers import run

R_INTRO_PAGE = Path(__file__).resolve().parents[1] / "data" / "r-intro-page44.pdf"


def test_r_manual_histogram_and_ecdf_plot_are_figures_with_their_labels() -> None:
    """R-intro.pdf page 44 (Debian's r-doc-pdf): two plots placed as form XObjects."""
    result = run(R_INTRO_PAGE.read_bytes())
    page = result.pages[0]
    assert page.source == "text_layer"
    figures = [b for b in page.blocks if b.type == "figure"]
    assert len(figures) == 2
    histogram, ecdf = figures
    labels = [ln.text for ln in histogram.lines]
    assert labels[0] == "Histogram of eruptions"
    assert {"Relative Frequency", "eruptions"} <= set(labels)
    assert "2.5" in histogram.text and "0.7" in histogram.text
    assert ecdf.text.startswith("ecdf(long)")
    for figure in figures:
        assert figure.image is not None
        crop = Image.open(io.BytesIO(result.images[figure.image]))
        assert crop.width > 300 and crop.height > 200  # 200 dpi of a 3.4 x 2.5 inch plot
        assert 85 <= figure.bbox.x0 <= 95 and 330 <= figure.bbox.x1 <= 340
    assert [b.type for b in page.blocks].count("table") == 0
    assert not any(b.type == "text" and b.text in {"2.0", "2.5", "Relative Frequency"} for b in page.blocks)
    markdown = result.to_markdown()
    assert "\ufffe" not in markdown and "\t" not in markdown
    assert "![Histogram of eruptions](page1-figure1.png)" in markdown
    assert "Relative Frequency" not in markdown  # in the figure's JSON, out of the prose
    assert "righthand mode" in markdown  # "right-" over "hand" is one word again


def test_chart_drawn_on_the_page_is_a_figure_and_a_ruled_table_stays_a_table() -> None:
    result = run(vector_chart_pdf())
    blocks = result.pages[0].blocks
    assert [b.type for b in blocks] == ["text", "figure", "text", "table"]
    chart = blocks[1]
    assert chart.text.split("\n") == [CHART_TITLE, "150", "100", "50", "0", " ".join(CHART_LABELS)]
    assert chart.image in result.images
    assert blocks[0].text == ENGLISH[0] and blocks[2].text == ENGLISH[1]
    assert blocks[3].table is not None and blocks[3].table.grid() == TABLE
