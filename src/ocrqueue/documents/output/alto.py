"""A document result as ALTO 4.4 XML (https://www.loc.gov/standards/alto/), page by page: a `Page`
per page with its `PrintSpace`, a `TextBlock` per block of `TextLine`s of `String`s (`CONTENT`,
`HPOS`/`VPOS`/`WIDTH`/`HEIGHT`, `WC` confidence 0-1) with `SP` between words, a figure without
text as an `Illustration`. The `MeasurementUnit` is pixel, of the page image at a given resolution;
languages are BCP 47 tags in `LANG` (xsd:language)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from xml.sax.saxutils import escape, quoteattr

from ocrqueue.documents.model import PageResult
from ocrqueue.documents.output.languages import first_tag
from ocrqueue.documents.output.wordboxes import Area, Box, BoxedLine, PagePixels, xml_safe

NAMESPACE = "http://www.loc.gov/standards/alto/ns-v4#"
SCHEMA_LOCATION = "http://www.loc.gov/standards/alto/v4/alto-4-4.xsd"


def _position(box: Box) -> str:
    return f'HPOS="{box.x0}" VPOS="{box.y0}" WIDTH="{box.width}" HEIGHT="{box.height}"'


def _line(line: BoxedLine, ids: str) -> str:
    parts = []
    for n, word in enumerate(line.words, 1):
        if n > 1:
            parts.append("<SP/>")
        confidence = "" if word.confidence is None else f' WC="{min(1.0, max(0.0, word.confidence)):.4f}"'
        parts.append(f'<String ID="{ids}_{n}" CONTENT={quoteattr(word.text)} {_position(word.box)}{confidence}/>')
    return f'<TextLine ID="{ids}" {_position(line.box)}>' + "".join(parts) + "</TextLine>"


def _area(area: Area, ids: str) -> str:
    if area.figure:
        return f'<Illustration ID="{ids}" {_position(area.box)}/>'
    lines = "\n".join(_line(line, f"{ids}_{n}") for n, line in enumerate(area.lines, 1))
    return f'<TextBlock ID="{ids}" {_position(area.box)}>\n{lines}\n</TextBlock>'


def page_alto(page: PageResult, dpi: float) -> str:
    pixels = PagePixels(page, dpi)
    number = page.index + 1
    tag = first_tag(page.languages)
    lang = f' LANG="{tag}"' if tag else ""
    size = f'WIDTH="{pixels.width}" HEIGHT="{pixels.height}"'
    blocks = "\n".join(_area(area, f"p{number}_b{n}") for n, area in enumerate(pixels.areas(), 1))
    return (
        f'<Page ID="p{number}" PHYSICAL_IMG_NR="{number}" {size}{lang}>\n'
        f'<PrintSpace HPOS="0" VPOS="0" {size}>\n{blocks}\n</PrintSpace>\n</Page>\n'
    )


def alto_chunks(
    pages: Iterable[PageResult], *, file_name: str, software: str, version: str, dpi: float
) -> Iterator[str]:
    """The description, then each page as it comes, then the end. `file_name` is the source
    document's; boxes are pixels of its pages at `dpi`; `software` and `version` made it."""
    yield (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<alto xmlns="{NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{NAMESPACE} {SCHEMA_LOCATION}" SCHEMAVERSION="4.4">\n'
        "<Description>\n<MeasurementUnit>pixel</MeasurementUnit>\n"
        f"<sourceImageInformation><fileName>{escape(xml_safe(file_name))}</fileName></sourceImageInformation>\n"
        '<Processing ID="ocr"><processingCategory>contentGeneration</processingCategory>'
        f"<processingSoftware><softwareName>{escape(software)}</softwareName>"
        f"<softwareVersion>{escape(version)}</softwareVersion></processingSoftware></Processing>\n"
        "</Description>\n<Layout>\n"
    )
    for page in pages:
        yield page_alto(page, dpi)
    yield "</Layout>\n</alto>\n"
