"""Build a page result by rendering the page and recognising it with an OCR engine.

The page is straightened and its ruling lines and tables found; then either the engine reads the
whole page once and its words are split by layout (ocrpage.py, classic OCR engines), or each
layout region is cropped and read on its own (ocrregions.py, engines with ``reads_regions`` such
as vision models). Boxes are converted from pixels back to points so both the OCR and the
text-layer path share one coordinate frame.
"""

from __future__ import annotations

from ocrqueue.documents.engines import OcrEngine
from ocrqueue.documents.layout.raster import find_rules
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.ocrcommon import OcrPage
from ocrqueue.documents.ocrpage import read_whole_page
from ocrqueue.documents.ocrregions import read_regions
from ocrqueue.documents.pages import PageInput


def from_ocr(
    page: PageInput,
    engine: OcrEngine,
    languages: tuple[str, ...],
    dpi: int,
    tables: bool,
    use_model: bool,
    warnings: list[str],
) -> PageResult:
    raster = page.render(dpi)
    if raster.lowered_from is not None:
        warnings.append(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    straight = deskew(raster.image, raster.dpi)
    if straight.angle:
        warnings.append(f"straightened by {straight.angle:.2f} degrees")
    rules = find_rules(straight, raster.dpi) if tables else None
    ocr_page = OcrPage(page.index, page.height, straight, rules, raster.dpi, raster.scale, engine, languages)
    read = read_regions if getattr(engine, "reads_regions", False) else read_whole_page
    blocks, figures = read(ocr_page, use_model)
    return PageResult(
        page.index, page.width, page.height, engine.name, tuple(blocks), raster.dpi, tuple(warnings), figures.images
    )
