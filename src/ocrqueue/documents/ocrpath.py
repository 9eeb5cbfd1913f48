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
from ocrqueue.documents.model import Block, PageResult
from ocrqueue.documents.ocrcommon import Figures, OcrPage
from ocrqueue.documents.ocrpage import read_whole_page
from ocrqueue.documents.ocrregions import read_regions
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.pages import PageInput
from ocrqueue.documents.scripts import scripts_in, scripts_of_languages

POOR_LINE_CONFIDENCE = 0.6
POOR_LINE_SHARE = 0.25


def from_ocr(page: PageInput, options: ProcessOptions, warnings: list[str]) -> PageResult:
    raster = page.render(options.dpi)
    if raster.lowered_from is not None:
        warnings.append(f"rendered at {raster.dpi} dpi instead of {raster.lowered_from} to stay within the limits")
    first = look(raster.image, raster.dpi, tesseract())
    width, height = (page.height, page.width) if first.rotation in (90, 270) else (page.width, page.height)
    if first.rotation:
        warnings.append(f"turned {first.rotation} degrees clockwise to read it upright")
    straight = deskew(turn(raster.image, first.rotation), raster.dpi)
    if straight.angle:
        warnings.append(f"straightened by {straight.angle:.2f} degrees")
    rules = find_rules(straight, raster.dpi) if options.tables else None
    scripts = first.scripts

    def read(scripts: tuple[str, ...]) -> tuple[str, tuple[str, ...], list[Block], Figures]:
        engine_name, languages = choose(options, scripts)
        engine = get_engine(engine_name)
        ocr_page = OcrPage(page.index, height, straight, rules, raster.dpi, raster.scale, engine, languages)
        reader = read_regions if getattr(engine, "reads_regions", False) else read_whole_page
        return (engine.name, languages, *reader(ocr_page, options.layout_model))

    name, languages, blocks, figures = read(scripts)
    if _may_hold_han(options, scripts, blocks):
        again = read(("Han", "Latin"))
        found = scripts_in(_text(again[2]))
        if "Han" in found:
            (name, languages, blocks, figures), scripts = again, found
    return PageResult(
        page.index,
        width,
        height,
        name,
        tuple(blocks),
        raster.dpi,
        tuple(warnings),
        figures.images,
        scripts or scripts_of_languages(languages),
        languages,
        first.rotation,
    )


def _may_hold_han(options: ProcessOptions, scripts: tuple[str, ...], blocks: list[Block]) -> bool:
    """Tesseract's script detection can call a Chinese page Latin when its sample holds many Latin
    words (a manual full of commands). Read as Latin, Chinese comes back as words of low confidence:
    when a quarter of the lines are, and languages are auto, the page is read once more with Chinese."""
    if options.languages != (AUTO,) or "Han" in scripts or "chi_sim" not in tesseract().installed:
        return False
    lines = [ln for b in blocks for ln in b.lines if ln.confidence is not None]
    poor = sum(1 for ln in lines if ln.confidence is not None and ln.confidence < POOR_LINE_CONFIDENCE)
    return bool(lines) and poor >= POOR_LINE_SHARE * len(lines)


def _text(blocks: list[Block]) -> str:
    return "".join(ln.text for b in blocks for ln in b.lines)
