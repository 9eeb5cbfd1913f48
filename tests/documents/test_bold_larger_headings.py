"""Headings a word processor sets in bold a little larger than the body, with more space above
than below (issue 22): Word's and LibreOffice's second and third levels are 12-14 pt bold over
11 pt text, under the 1.3 ratio that makes large type a title, and came back as paragraphs of
their own ("Permits more lax", 14 pt bold on a dev form printed by Chromium, was text on its
clean render). `layout/blocks.stands_as_bold_heading` takes them; a bold name over an address at
the body's size, a bold sentence and larger regular type stay text.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import stands_as_bold_heading
from ocrqueue.documents.model import Line

from .helpers import first_page_png, printed_by_chromium, run

HEADINGS = ("Scope of the Agreement", "Payment Terms", "Termination")
PROSE = (
    "The supplier delivers the goods named in the order to the address the buyer gives, within "
    "the time agreed, and bears the risk of their loss until they are handed over. "
)
SECTION = '<h3 style="font-size:{}pt;margin:1em 0 0.5em 0">{}</h3><p style="margin:0">{}</p>'
ADDRESS = (
    '<p style="margin:1.5em 0 0 0"><b>Harbour Supplies Ltd</b></p>'
    '<p style="margin:1em 0 0 0">12 Quay Street, Portsmouth</p>'
)
SENTENCE = '<p style="margin:1em 0 0 0;font-size:13pt"><b>Orders are binding once confirmed.</b></p>'
PAGE = (
    '<html><body style="font-family:sans-serif;font-size:11pt;line-height:1.3;margin:1in">'
    + "".join(SECTION.format(size, h, PROSE * 3) for size, h in zip((14, 13, 14), HEADINGS, strict=True))
    + ADDRESS
    + SENTENCE
    + "</body></html>"
)


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return printed_by_chromium({"page": PAGE})["page"]


@pytest.mark.parametrize("path", ["text_layer", "rendered"])
def test_bold_headings_a_little_larger_than_the_body_are_headings(pdf: bytes, path: str) -> None:
    """Before (rendered): no title; each heading a text block of its own."""
    blocks = run(pdf if path == "text_layer" else first_page_png(pdf, 300)).pages[0].blocks
    titles = [b.text for b in blocks if b.type == "title"]
    assert titles == list(HEADINGS), [(b.type, b.text[:40]) for b in blocks]


def line(text: str, size: float, bold: bool) -> Line:
    return Line(text, BBox(72, 100, 400, 100 + size), 1.0, (), size, bold=bold)


PROSE_LINES = [line(PROSE, 11.0, False)]


@pytest.mark.parametrize(
    ("text", "size", "bold", "heading"),
    [
        ("Payment Terms", 12.5, True, True),
        ("Payment Terms", 12.5, False, False),  # not bold
        ("Orders are binding once confirmed.", 12.5, True, False),  # a sentence
        ("payment terms apply", 12.5, True, False),  # runs on in lower case
    ],
)
def test_only_a_bold_line_larger_than_the_body_is_a_heading(text: str, size: float, bold: bool, heading: bool) -> None:
    assert stands_as_bold_heading([line(text, size, bold)], None, PROSE_LINES, 11.0) == heading


def test_a_bold_line_over_no_prose_is_no_heading() -> None:
    """A flowchart's bold boxes stand over other boxes, not over prose."""
    box = [line("Metastatic Disease", 12.5, True)]
    assert not stands_as_bold_heading(box, None, [line("Consider Surgery", 12.5, True)], 11.0)
    assert not stands_as_bold_heading(box, None, None, 11.0)
