"""Build a page result by rendering the page and recognising it with an OCR engine.

The page is rendered, looked at once cheaply (firstlook.py: which way up, which scripts), turned
upright, and read by the engine and languages chosen for it (choice.py). It is straightened and
its ruling lines and tables found; then either the engine reads the whole page once and its
words are split by layout (ocrpage.py, classic OCR engines), or each layout region is cropped and
read on its own (ocrregions.py, engines with ``reads_regions`` such as vision models). Boxes are
converted from pixels back to points so both the OCR and the text-layer path share one coordinate
frame: that of the page as read, upright.
"""

from __future__ import annotations

from ocrqueue.documents.choice import choose, tesseract
from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.firstlook import look, turn
from ocrqueue.documents.layout.raster import find_rules
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.ocrcommon import OcrPage
from ocrqueue.documents.ocrpage import read_whole_page
from ocrqueue.documents.ocrregions import read_regions
from ocrqueue.documents.options import ProcessOptions
from ocrqueue.documents.pages import PageInput
from ocrqueue.documents.scripts import scripts_of_languages


def from_ocr(page: PageInput, options: ProcessOptions, warnings: list[str]) -> PageResult:
    raster = page.render(options.dpi)
    if raster.lowered_from is not None:
        warnings.append(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    first = look(raster.image, raster.dpi, tesseract())
    engine_name, languages = choose(options, first.scripts)
    engine = get_engine(engine_name)
    width, height = (page.height, page.width) if first.rotation in (90, 270) else (page.width, page.height)
    if first.rotation:
        warnings.append(f"turned {first.rotation} degrees clockwise to read it upright")
    straight = deskew(turn(raster.image, first.rotation), raster.dpi)
    if straight.angle:
        warnings.append(f"straightened by {straight.angle:.2f} degrees")
    rules = find_rules(straight, raster.dpi) if options.tables else None
    ocr_page = OcrPage(page.index, height, straight, rules, raster.dpi, raster.scale, engine, languages)
    read = read_regions if getattr(engine, "reads_regions", False) else read_whole_page
    blocks, figures = read(ocr_page, options.layout_model)
    return PageResult(
        page.index,
        width,
        height,
        engine.name,
        tuple(blocks),
        raster.dpi,
        tuple(warnings),
        figures.images,
        first.scripts or scripts_of_languages(languages),
        languages,
        first.rotation,
    )
