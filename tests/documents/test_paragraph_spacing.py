"""Paragraphs set apart by a space after them smaller than a line (issue 22): word processors and
browsers do so (LibreOffice's 0.25 cm, a CSS margin of half an em), and the gap rule alone (a gap
taller than a line ends a paragraph) read such a page as one paragraph. Here Chromium prints four
paragraphs of several lines each with a space of 0.6 em between them, and the text layer must give
them back as four blocks, none split inside.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import re

import pytest

from .helpers import printed_by_chromium, run

NUMBERS = ("one", "two", "three", "four")
SENTENCE = "Paragraph {} tells how the harbour works went on, and it runs for a few lines of its own."
PAGE = (
    '<html><body style="font-family:serif;font-size:11pt;line-height:1.25;margin:1in">'
    + "".join(f'<p style="margin:0 0 0.6em 0">{" ".join([SENTENCE.format(n)] * 4)}</p>' for n in NUMBERS)
    + "</body></html>"
)


@pytest.fixture(scope="module")
def pdf() -> bytes:
    """The page printed to PDF by Chromium."""
    return printed_by_chromium({"page": PAGE})["page"]


def test_paragraphs_spaced_less_than_a_line_are_blocks_of_their_own(pdf: bytes) -> None:
    blocks = [b for b in run(pdf).pages[0].blocks if b.type == "text"]
    named = [set(re.findall(r"Paragraph (\w+)", b.text)) for b in blocks]
    assert named == [{n} for n in NUMBERS]
    assert all(len(b.lines) >= 3 and b.text.count("Paragraph") == 4 for b in blocks)
