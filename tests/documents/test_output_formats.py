"""Plain text, HTML, hOCR and ALTO written from real pipeline results (the generated samples: a
born-digital PDF with a table and hostile text, scans read by OCR with real confidences, Chinese,
a figure), checked with real validators: ALTO against the official ALTO 4.4 XSD, hOCR with
hocr-spec and the spec's required properties, HTML with an HTML parser."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest
from support.validators import ALTO_NS, XHTML_NS, properties, valid_alto, valid_hocr

from ocrqueue.documents import DocumentResult, PageResult
from ocrqueue.documents.output.alto import alto_chunks
from ocrqueue.documents.output.hocr import hocr_chunks
from ocrqueue.documents.output.html import html_chunks
from ocrqueue.documents.output.plaintext import PAGE_BREAK, text_chunks

from .conftest import Samples
from .helpers import run

DPI = 100
SAMPLES = ("born_digital", "english_scan", "chinese", "figure_pdf", "table")
HOSTILE = "Use <script>alert(1)</script> & <b>bold</b> * not # a heading"


@pytest.fixture(scope="module")
def results(samples: Samples) -> dict[str, DocumentResult]:
    return {name: run(samples.data(name)) for name in SAMPLES}


def _alto(result: DocumentResult) -> bytes:
    return "".join(alto_chunks(result.pages, file_name="doc.pdf", software="ocrqueue", version="0", dpi=DPI)).encode()


def _hocr(result: DocumentResult, tmp_path: Path) -> Path:
    text = "".join(
        hocr_chunks(result.pages, title="doc.pdf", system="ocrqueue 0", dpi=DPI, image=lambda p: f"pages/{p.index + 1}")
    )
    path = tmp_path / "doc.hocr"
    path.write_text(text, encoding="utf-8")
    return path


def _words(result: DocumentResult) -> list[tuple[str, float | None]]:
    """Every word the JSON has, in order, with its confidence: a line without word boxes is one
    word, a table without lines has its cells as words, another block without lines its text."""
    found: list[tuple[str, float | None]] = []
    for page in result.pages:
        for block in page.blocks:
            if block.lines:
                for line in block.lines:
                    if line.words:
                        found += [(w.text, w.confidence) for w in line.words if w.text.strip()]
                    elif line.text.strip():
                        found.append((line.text.strip(), line.confidence))
            elif block.table is not None:
                found += [(" ".join(c.text.split()), block.confidence) for c in block.table.cells if c.text.strip()]
            elif block.text.strip():
                found.append((" ".join(block.text.split()), block.confidence))
    return found


@pytest.mark.parametrize("name", SAMPLES)
def test_alto_is_valid_against_the_alto_4_4_schema_and_holds_every_word(
    results: dict[str, DocumentResult], name: str
) -> None:
    result = results[name]
    document = valid_alto(_alto(result))
    assert document.findtext("a:Description/a:MeasurementUnit", namespaces=ALTO_NS) == "pixel"
    pages = document.findall(".//a:Page", ALTO_NS)
    assert [float(p.get("WIDTH")) for p in pages] == [math.ceil(p.width * DPI / 72) for p in result.pages]
    strings = document.findall(".//a:String", ALTO_NS)
    expected = _words(result)
    assert [s.get("CONTENT") for s in strings] == [text for text, _ in expected]
    for string, (_, confidence) in zip(strings, expected, strict=True):
        assert (string.get("WC") is None) == (confidence is None)
        if confidence is not None:
            assert float(string.get("WC")) == pytest.approx(confidence, abs=1e-4)
    for line in document.iterfind(".//a:TextLine", ALTO_NS):
        children = [child.tag.split("}")[1] for child in line]
        assert children == ["String", "SP"] * (len(children) // 2) + ["String"]


@pytest.mark.parametrize("name", SAMPLES)
def test_hocr_passes_the_hocr_spec_checker_and_carries_boxes_and_confidences(
    results: dict[str, DocumentResult], name: str, tmp_path: Path
) -> None:
    result = results[name]
    document = valid_hocr(_hocr(result, tmp_path))
    pages = document.findall(".//h:div[@class='ocr_page']", XHTML_NS)
    assert [properties(p)["ppageno"] for p in pages] == [str(p.index) for p in result.pages]
    assert properties(pages[0])["image"] == '"pages/1"'
    words = document.findall(".//h:span[@class='ocrx_word']", XHTML_NS)
    expected = _words(result)
    assert ["".join(w.itertext()) for w in words] == [text for text, _ in expected]
    for word, (_, confidence) in zip(words, expected, strict=True):
        if confidence is not None:
            assert int(properties(word)["x_wconf"]) == round(confidence * 100)
    first_word = next(w for p in result.pages for b in p.blocks for ln in b.lines for w in ln.words)
    x0, y0, _, _ = (int(v) for v in properties(words[0])["bbox"].split())
    assert (x0, y0) == (int(first_word.bbox.x0 * DPI / 72), int(first_word.bbox.y0 * DPI / 72))


def test_languages_are_bcp_47_tags(results: dict[str, DocumentResult], tmp_path: Path) -> None:
    chinese = results["chinese"]
    assert "chi_sim" in chinese.pages[0].languages
    alto = valid_alto(_alto(chinese))
    assert alto.find(".//a:Page", ALTO_NS).get("LANG") == "zh-Hans"
    hocr = valid_hocr(_hocr(chinese, tmp_path))
    assert hocr.find(".//h:div[@class='ocr_page']", XHTML_NS).get("lang") == "zh-Hans"


def test_html_is_a_complete_escaped_document(results: dict[str, DocumentResult]) -> None:
    result = results["born_digital"]
    text = "".join(html_chunks(result.pages, "report <1>.pdf", figure_base="assets/imgs/"))
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    root = lxml.html.document_fromstring(text)
    assert root.findtext(".//title") == "report <1>.pdf"
    assert not root.findall(".//script") and not root.findall(".//b")  # the page's markup is text
    assert any(HOSTILE in (p.text_content() or "") for p in root.iter("p"))
    assert root.find(".//h1").text_content() == "Supplier Invoices"
    table = root.find(".//table")
    assert table is not None and len(table.findall(".//tr")) >= 2
    assert len(root.findall(".//section")) == len(result.pages)
    figure = results["figure_pdf"]
    figure_html = lxml.html.document_fromstring("".join(html_chunks(figure.pages, "f", figure_base="assets/imgs/")))
    images = [img.get("src") for img in figure_html.iter("img")]
    names = [b.image for p in figure.pages for b in p.blocks if b.image]
    assert names and images == [f"assets/imgs/{name}" for name in names]


def test_html_leaves_out_control_characters_html_cannot_carry(results: dict[str, DocumentResult]) -> None:
    page = results["born_digital"].pages[0]
    block = next(b for b in page.blocks if b.type == "text")
    dirty = dataclasses.replace(page, blocks=(dataclasses.replace(block, text="bell\x07 and\x00 nul <i>"),))
    text = "".join(html_chunks([dirty], "t"))
    assert "<p>bell and nul &lt;i&gt;</p>" in text


def test_plain_text_has_the_text_and_a_form_feed_between_pages(results: dict[str, DocumentResult]) -> None:
    result = results["born_digital"]
    text = "".join(text_chunks(result.pages))
    assert text.count(PAGE_BREAK) == len(result.pages) - 1
    assert "Supplier Invoices" in text and HOSTILE in text
    first_table = next(b.table for p in result.pages for b in p.blocks if b.table is not None)
    assert "\t".join(first_table.grid()[0]) in text


@pytest.mark.parametrize("fmt", ["text", "html", "hocr", "alto"])
def test_each_page_is_written_before_the_next_is_read(results: dict[str, DocumentResult], fmt: str) -> None:
    """Streamed: a writer holds one page, so memory does not grow with the page count."""
    pages = results["born_digital"].pages
    pulled: list[int] = []

    def lazily() -> Iterator[PageResult]:
        for page in pages:
            pulled.append(page.index)
            yield page

    writers = {
        "text": lambda: text_chunks(lazily()),
        "html": lambda: html_chunks(lazily(), "t"),
        "hocr": lambda: hocr_chunks(lazily(), title="t", system="s", dpi=DPI, image=lambda p: "x"),
        "alto": lambda: alto_chunks(lazily(), file_name="t", software="s", version="0", dpi=DPI),
    }
    chunks = writers[fmt]()
    next(chunks)  # the head
    while not pulled:
        next(chunks)
    assert pulled == [0]
    next(chunks)
    assert pulled in ([0], [0, 1])  # page 1 written before page 2 is read
