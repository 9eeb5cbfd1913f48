"""Build a page result by rendering the page and recognising it with an OCR engine.

The page is rendered, looked at once cheaply (firstlook.py: which way up, which scripts), turned
upright, and read by the engine and languages chosen for it (choice.py). It is straightened and
its ruling lines and tables found; then either the engine reads the whole page once and its
words are split by layout (ocrpage.py, classic OCR engines), or each layout region is cropped and
read on its own (ocrregions.py, engines whose capabilities say ``reads_regions``, such as vision models). Boxes are
converted from pixels back to points so both the OCR and the text-layer path share one coordinate
frame: that of the page as read, upright.
"""

from __future__ import annotations

from PIL import Image

from ocrqueue.documents.engines import get_engine
from ocrqueue.documents.input.pages import PageInput
from ocrqueue.documents.layout.raster import find_rules
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.model import Block, PageResult
from ocrqueue.documents.ocr.assemble import Figures, OcrPage
from ocrqueue.documents.ocr.by_region import read_regions
from ocrqueue.documents.ocr.detect import FirstLook, look, turn
from ocrqueue.documents.ocr.engine_choice import choose, first_look_engine
from ocrqueue.documents.ocr.script_recheck import HAN, holds_han
from ocrqueue.documents.ocr.whole_page import read_whole_page
from ocrqueue.documents.options import ProcessOptions
from ocrqueue.documents.scripts import scripts_in, scripts_of_languages


def from_ocr(page: PageInput, options: ProcessOptions, warnings: list[str]) -> PageResult:
    image, first, dpi, scale = _upright(page, options, warnings)
    width, height = (page.height, page.width) if first.rotation in (90, 270) else (page.width, page.height)
    straight = deskew(image, dpi)
    if straight.angle:
        warnings.append(f"straightened by {straight.angle:.2f} degrees")
    rules = find_rules(straight, dpi) if options.tables else None
    scripts = first.scripts

    def read(scripts: tuple[str, ...]) -> tuple[str, tuple[str, ...], list[Block], Figures]:
        engine_name, languages = choose(options, scripts)
        engine = get_engine(engine_name)
        ocr_page = OcrPage(page.index, height, straight, rules, dpi, scale, engine, languages)
        reader = read_regions if engine.capabilities.reads_regions else read_whole_page
        return (engine.name, languages, *reader(ocr_page, options.layout_model))

    name, languages, blocks, figures = read(scripts)
    if holds_han(straight.image, scale, blocks, options, scripts):
        again = read(HAN)
        found = scripts_in(_text(again[2]))
        if "Han" in found:
            (name, languages, blocks, figures), scripts = again, found
    return PageResult(
        page.index,
        width,
        height,
        name,
        tuple(blocks),
        dpi,
        tuple(warnings),
        figures.images,
        scripts or scripts_of_languages(languages),
        languages,
        first.rotation,
    )


def _upright(
    page: PageInput, options: ProcessOptions, warnings: list[str]
) -> tuple[Image.Image, FirstLook, int, float]:
    """The page rendered, looked at and turned upright. The render is dropped here once turned: held
    beside the turned copy, a page lying on its side would keep two colour copies while it is read."""
    raster = page.render(options.dpi)
    if raster.lowered_from is not None:
        warnings.append(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    first = look(raster.image, raster.dpi, first_look_engine(options))
    if first.rotation:
        warnings.append(f"turned {first.rotation} degrees clockwise to read it upright")
    return turn(raster.image, first.rotation), first, raster.dpi, raster.scale


def _text(blocks: list[Block]) -> str:
    return "".join(ln.text for b in blocks for ln in b.lines)
