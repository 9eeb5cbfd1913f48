"""Run the whole pipeline on one sample; compare two readings of it."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from data.made_documents import make
from data.metrics import paragraph_flow
from data.structure_metrics import Counts, boundary_counts
from data.structure_truth import page_structure
from PIL import Image
from support.results import without_timings

from ocrqueue.documents import DocumentResult, PipelineResources, ProcessOptions, assemble, open_document, process_page


def run(data: bytes, resources: PipelineResources | None = None, **options: object) -> DocumentResult:
    opts = ProcessOptions(**options)  # type: ignore[arg-type]
    with open_document(data) as doc:
        return assemble(doc.meta, [process_page(page, opts, resources) for page in doc.pages()])


CHROMIUM = "/usr/bin/chromium"


def printed_by_chromium(pages: dict[str, str], backgrounds: bool = False) -> dict[str, bytes]:
    """Each HTML page printed to an A4 PDF without margins by Debian's Chromium (driven by
    Playwright, as the browser tests drive it); the test is skipped without chromium."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    out: dict[str, bytes] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        tab = browser.new_page()
        margin = {side: "0" for side in ("top", "bottom", "left", "right")}
        for name, html in pages.items():
            tab.set_content(html)
            out[name] = tab.pdf(format="A4", print_background=backgrounds, margin=margin)
        browser.close()
    return out


def unmeasured(result: DocumentResult) -> dict[str, Any]:
    """The result's JSON without what is measured (stage timings): two readings must equal in it."""
    return without_timings(result.to_dict())


# An A4 page at 300 dpi with 20 mm margins (pixels), and 11 pt type at 300 dpi: a page drawn as a
# word processor would set it.
A4_AT_300_DPI = (2480, 3508, 236)
TYPE_11PT_AT_300_DPI = 46


def png_bytes(image: Image.Image, dpi: int) -> bytes:
    """``image`` as a PNG that says its resolution, as a scanner's would."""
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi))
    return out.getvalue()


def line_texts(data: bytes) -> list[str]:
    """The first page's lines as read, in reading order, without empty ones."""
    blocks = run(data).pages[0].blocks
    return [ln.text.strip() for b in blocks for ln in b.lines if ln.text.strip()]


def first_page_png(pdf: bytes, dpi: int) -> bytes:
    """The first page of ``pdf`` rendered at ``dpi`` as a PNG that says its resolution: a
    printed page read as a picture of it."""
    document = pdfium.PdfDocument(pdf)
    try:
        return png_bytes(document[0].render(scale=dpi / 72).to_pil().convert("RGB"), dpi)
    finally:
        document.close()


def made_newspaper(tmp_path_factory: pytest.TempPathFactory, seed: str) -> Path:
    """A newspaper Chromium prints from ``seed`` (tests/data/made_documents.py; skipped without it)."""
    if not shutil.which("chromium"):
        pytest.skip("no chromium (apt-get install chromium)")
    path = tmp_path_factory.mktemp("newspaper") / "newspaper.pdf"
    make({"kind": "newspaper", "producer": "chromium", "seed": seed}, path)
    return path


def read_rendered(path: Path, page: int) -> tuple[Counts, list[str]]:
    """Page ``page`` of the PDF rendered at 200 dpi and read: its paragraph boundaries against the
    structure the PDF is tagged with, and the types of the blocks read."""
    image = pdfium.PdfDocument(path)[page - 1].render(scale=200 / 72, grayscale=True).to_pil()
    blocks = run(png_bytes(image, 200)).pages[0].blocks
    truth = [b.text for b in page_structure(path, page) if b.kind != "table"]
    return boundary_counts(truth, paragraph_flow(blocks)), [b.type for b in blocks]
