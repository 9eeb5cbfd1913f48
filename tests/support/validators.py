"""Real validators for the layout formats: the official ALTO 4.4 XSD through lxml's XMLSchema
(tests/resources/alto/, see tests/resources/README.md), and hocr-spec's checker of the hOCR spec."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hocr_spec import HocrValidator
from lxml import etree

ALTO_DIR = Path(__file__).resolve().parents[1] / "resources" / "alto"
XLINK_URL = "http://www.loc.gov/standards/xlink/xlink.xsd"
ALTO_NS = {"a": "http://www.loc.gov/standards/alto/ns-v4#"}
XHTML_NS = {"h": "http://www.w3.org/1999/xhtml"}


class _LocalXlink(etree.Resolver):
    """The XSD imports the XLink schema by its Library of Congress URL; a copy is stored beside it."""

    def resolve(self, url: str, pubid: str, context: Any) -> Any:
        if url == XLINK_URL:
            return self.resolve_filename(str(ALTO_DIR / "xlink.xsd"), context)
        return None


@cache
def alto_schema() -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(_LocalXlink())
    return etree.XMLSchema(etree.parse(str(ALTO_DIR / "alto-4-4.xsd"), parser))


def valid_alto(data: bytes) -> etree._ElementTree:
    """The parsed ALTO document; AssertionError with the schema's complaints when it is not valid."""
    document = etree.ElementTree(etree.fromstring(data, etree.XMLParser(no_network=True)))
    schema = alto_schema()
    assert schema.validate(document), "\n".join(str(e) for e in schema.error_log)
    return document


def valid_hocr(path: Path) -> etree._ElementTree:
    """The hOCR file parsed as XML (it is XHTML, so it must be well-formed); AssertionError with
    hocr-spec's report when the checker finds an error against the spec (standard profile:
    capabilities, property syntax and ranges, nesting). hocr-spec does not insist on what hOCR 1.2
    says every page and element carries, so that is checked here: `ocr-system` and
    `ocr-capabilities` metadata, `bbox`, `image` and `ppageno` on every `ocr_page`, `bbox` on every
    area, paragraph, line and word, each inside its page's box."""
    document = etree.parse(str(path), etree.XMLParser(no_network=True))
    report = HocrValidator("standard").validate(str(path))
    assert report.is_valid(), report.format("text")
    metadata = {m.get("name") for m in document.iterfind(".//h:meta", XHTML_NS)}
    assert {"ocr-system", "ocr-capabilities"} <= metadata
    pages = document.findall(".//h:div[@class='ocr_page']", XHTML_NS)
    assert pages
    for page in pages:
        title = properties(page)
        assert {"bbox", "image", "ppageno"} <= title.keys(), page.get("title")
        _, _, width, height = (int(v) for v in title["bbox"].split())
        for element in page.iterfind(".//*[@class]"):
            if element.get("class") in ("ocr_carea", "ocr_par", "ocr_line", "ocrx_word", "ocr_photo"):
                x0, y0, x1, y1 = (int(v) for v in properties(element)["bbox"].split())
                assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height, element.get("title")
    return document


def properties(element: Any) -> dict[str, str]:
    """An hOCR element's `title` properties by name (values as written)."""
    pairs = (part.strip().split(" ", 1) for part in element.get("title", "").split(";") if part.strip())
    return {name: value for name, value in pairs}
