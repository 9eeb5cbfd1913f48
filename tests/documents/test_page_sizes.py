"""Pages of sizes no engine should see: poster-sized pages are rendered within the pixel budget,
strips and zero-area pages are refused with a clear error before any engine runs."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from ocrqueue.documents import DocumentLimits, ProcessOptions, TooFewPixelsError, open_document, process_page


def _blank_pdf(width: float, height: float) -> bytes:
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(width, height)
    buffer = io.BytesIO()
    pdf.save(buffer)
    return buffer.getvalue()


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (width, height), 255).save(buffer, "PNG")
    return buffer.getvalue()


def test_a_poster_page_is_rendered_within_the_pixel_budget() -> None:
    limits = DocumentLimits(render_pixel_budget=8_000_000)  # 80 dpi for 25 x 50 inches
    with open_document(_blank_pdf(25 * 72, 50 * 72), limits) as document:
        pages = document.pages()  # a page is closed when its iterator moves on or goes away
        raster = next(pages).render(200)
    assert raster.image.size == (2000, 4000) and raster.dpi == 80 and raster.lowered_from == 200
    with open_document(_blank_pdf(25 * 72, 50 * 72), DocumentLimits(render_pixel_budget=10)) as document:
        pages = document.pages()
        assert next(pages).render(200).dpi == 72  # the budget never goes below 72 dpi


@pytest.mark.parametrize(("width", "height"), [(1, 100_000), (100_000, 1), (7, 7), (3, 2000)])
def test_strip_images_are_refused_before_any_engine_runs(width: int, height: int) -> None:
    with pytest.raises(TooFewPixelsError, match="thinner than 8 pixels"):
        open_document(_png(width, height))


def test_the_minimum_side_is_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "thin.png"
    path.write_bytes(_png(12, 900))
    with pytest.raises(TooFewPixelsError, match="thinner than 16 pixels"):
        open_document(path, DocumentLimits(min_page_side_pixels=16))
    with open_document(path) as document:
        pages = document.pages()
        assert process_page(next(pages), ProcessOptions()).index == 0


@pytest.mark.parametrize(("width", "height"), [(0.5, 800), (600, 1)])
def test_zero_area_and_strip_pdf_pages_are_refused_when_rendered(width: float, height: float) -> None:
    with open_document(_blank_pdf(width, height)) as document, pytest.raises(TooFewPixelsError):
        pages = document.pages()
        process_page(next(pages), ProcessOptions(mode="ocr"))
