"""Headings set in the body's size in bold, straight over their paragraph (issue 22): word
processors' and InDesign's lower headings look so ("Surgical Complications" over its paragraph in
the dev NCCN guidelines), and both paths read each into the paragraph under it, a heading lost.
Chromium prints three such sections in 11-pt serif, no space under a heading, and a bold phrase
inside a paragraph and a bold name over an address (neither is a heading). The text layer knows
the bold face from its font; the rendered page from its strokes (ocr/bold_lines.py).

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import bold_heads
from ocrqueue.documents.model import Line

from .helpers import first_page_png, printed_by_chromium, run

HEADINGS = ("Surgical Complications", "Radioactive Iodine Treatment", "Follow-up Imaging")
PROSE = (
    "The most common complications after the operation are rare when the surgeon is experienced, "
    "and most of them pass within a few weeks of careful treatment and rest at home. "
)
SECTION = '<p style="margin:0"><b>{}</b></p><p style="margin:0 0 1.2em 0">{}</p>'
INLINE = "<p>Patients are told that <b>the first visit</b> comes after a month, and the next after a year.</p>"
ADDRESS = '<p style="margin:1.2em 0 0 0"><b>Harbour Clinic</b><br>12 Quay Street<br>Portsmouth</p>'
PAGE = (
    '<html><body style="font-family:serif;font-size:11pt;line-height:1.3;margin:1in">'
    + "".join(SECTION.format(h, PROSE * 3) for h in HEADINGS)
    + INLINE
    + ADDRESS
    + "</body></html>"
)


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return printed_by_chromium({"page": PAGE})["page"]


def rendered(pdf: bytes) -> bytes:
    return first_page_png(pdf, 300)


def titles_and_prose(data: bytes) -> tuple[list[str], list[str]]:
    blocks = run(data).pages[0].blocks
    return [b.text for b in blocks if b.type == "title"], [b.text for b in blocks if b.type == "text"]


@pytest.mark.parametrize("path", ["text_layer", "rendered"])
def test_a_bold_heading_over_its_paragraph_is_a_heading(pdf: bytes, path: str) -> None:
    """Before: no title; "Surgical Complications The most common complications ..." one block."""
    titles, prose = titles_and_prose(pdf if path == "text_layer" else rendered(pdf))
    assert titles == list(HEADINGS), (titles, prose)
    assert sum(text.startswith("The most common") for text in prose) == len(HEADINGS), prose
    assert any("the first visit comes after a month" in text for text in prose), prose
    assert any(text.startswith("Harbour Clinic") for text in prose), prose


def line(text: str, y: float, bold: bool = False) -> Line:
    return Line(text, BBox(72, y, 500, y + 11), 1.0, (), 11.0, bold=bold)


PARAGRAPH = [line(PROSE, 100 + 13 * i) for i in range(1, 4)]


@pytest.mark.parametrize(
    ("first", "heads"),
    [
        ("Surgical Complications", 1),
        ("regions): 60-66 Gy in 1.8-2 Gy per fraction", 0),  # a bold phrase running on in lower case
        ("Warning: do not eat before the operation.", 0),  # a sentence
        ("Bill to:", 0),
    ],
)
def test_only_a_bold_heading_line_over_prose_is_split_off(first: str, heads: int) -> None:
    found, rest = bold_heads([line(first, 100, bold=True), *PARAGRAPH], 11.0)
    assert len(found) == heads
    assert len(rest) == len(PARAGRAPH) + 1 - heads


def test_bold_lines_over_no_prose_are_no_heading() -> None:
    address = [line("Harbour Clinic", 100, bold=True), line("12 Quay Street", 113), line("Portsmouth", 126)]
    assert bold_heads(address, 11.0) == ([], address)
