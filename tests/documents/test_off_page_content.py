"""What a PDF draws outside its crop box is not on the page: a page cut from a bigger one (pdfcrop,
a CropBox smaller than the MediaBox) keeps the whole page's text, images and drawings, and a
figure found there once crashed the page when its crop was rendered ("Crop exceeds page
dimensions"). The text layer reads what the page shows, as OCR of its render would."""

from __future__ import annotations

import io

import pikepdf
import pytest
from generate import ENGLISH, vector_chart_pdf
from PIL import Image

from ocrqueue.documents import PageRenderError, open_document
from ocrqueue.documents.geometry import BBox

from .helpers import run

# vector_chart_pdf's A4 page, top-left points: a line of text at y 81-91, a chart at 121-345, a
# second line at 371-381 and a ruled table at 420-516.
A4_HEIGHT = 842.0


def _cut(data: bytes, shown_height: float, box: str) -> bytes:
    """The page with only its top ``shown_height`` points visible, through ``box``."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.pages[0].obj[box] = pikepdf.Array([0, A4_HEIGHT - shown_height, 595, A4_HEIGHT])
        out = io.BytesIO()
        pdf.save(out)
        return out.getvalue()


@pytest.mark.parametrize("box", ["/MediaBox", "/CropBox"])
def test_a_chart_below_the_visible_page_is_not_read(box: str) -> None:
    result = run(_cut(vector_chart_pdf(), 110, box))
    page = result.pages[0]
    assert page.source == "text_layer"
    assert [(b.type, b.text) for b in page.blocks] == [("text", ENGLISH[0])]
    assert result.images == {}


@pytest.mark.parametrize("box", ["/MediaBox", "/CropBox"])
def test_a_chart_cut_by_the_page_edge_is_a_figure_of_its_visible_part(box: str) -> None:
    result = run(_cut(vector_chart_pdf(), 250, box))
    blocks = result.pages[0].blocks
    assert [b.type for b in blocks] == ["text", "figure"]
    chart = blocks[1]
    assert chart.bbox.y0 >= 120 and chart.bbox.y1 <= 250
    assert chart.image is not None
    crop = Image.open(io.BytesIO(result.images[chart.image]))
    assert crop.height < crop.width  # the visible 130 points of a 225-point-high chart
    assert ENGLISH[1] not in result.to_markdown()


def test_rendering_a_region_off_the_page_is_a_clear_page_error() -> None:
    with open_document(_cut(vector_chart_pdf(), 110, "/MediaBox")) as doc:
        pages = doc.pages()
        page = next(pages)
        with pytest.raises(PageRenderError, match="not on the page"):
            page.render_region(BBox(76, 121, 361, 345), 200)
