"""A form's running foot in pieces at different heights is a footer, not a heading (issue 22).

DD Form 293 prints "DD FORM 293, FEB 2025", "CUI (when filled in)" and "Page 3 of 4" across its
foot, each a little higher or lower than the next. Tesseract reads the three as one line whose
row spans them all: 14 pt for 10-pt type, so the rendered page's foot became a level-1 heading on
every page (engines/row_size.py). Chromium prints such a page here, in 7.5-pt prose.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents.engines.row_size import MAX_ROW_PER_WORD, ROW_PER_WORD, row_size
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Word

from .helpers import first_page_png, printed_by_chromium, run

PROSE = (
    "Applicants may make oral or written arguments personally or through counsel, and witnesses who "
    "present sworn statements may be questioned by the board before it decides. "
)
FOOT = (
    '<div style="position:absolute;left:0.3in;right:0.3in;bottom:0.45in;height:0.3in">'
    '<b style="position:absolute;left:0;bottom:0.02in;font-size:10pt">DD FORM 293, FEB 2025</b>'
    '<b style="position:absolute;left:3.3in;bottom:0;font-size:10pt">CUI (when filled in)</b>'
    '<span style="position:absolute;right:0;bottom:0.08in;font-size:10pt">Page 3 of 4</span></div>'
    '<div style="position:absolute;left:0.3in;bottom:0.25in;font-size:8.5pt">PREVIOUS EDITION IS OBSOLETE.</div>'
)
PAGE = (
    '<html><body style="font-family:sans-serif;font-size:7.5pt;line-height:1.3;margin:0.3in;height:11.69in">'
    + "".join(f"<p>{PROSE * 3}</p>" for _ in range(8))
    + FOOT
    + "</body></html>"
)


@pytest.fixture(scope="module")
def rendered() -> bytes:
    return first_page_png(printed_by_chromium({"page": PAGE})["page"], 300)


def test_a_foot_in_pieces_at_different_heights_is_a_footer(rendered: bytes) -> None:
    """Before: 'DD FORM 293, FEB 2025 CUI (when filled in) Page 3 of 4' a title, 14.6 pt."""
    blocks = run(rendered).pages[0].blocks
    assert not [b.text for b in blocks if b.type == "title"]
    foot = next(b for b in blocks if "Page 3 of 4" in b.text)
    assert foot.type == "footer"


def _word(text: str, y0: float, height: float) -> Word:
    return Word(text, BBox(0.0, y0, 10.0, y0 + height), 0.9)


def test_a_row_of_words_on_one_baseline_keeps_its_height() -> None:
    words = [_word("Surgical", 100.0, 9.0), _word("care", 102.0, 7.0), _word("gap", 102.0, 9.0)]
    assert row_size(11.5, words) == 11.5


@given(
    height=st.floats(min_value=4.0, max_value=40.0),
    rise=st.floats(min_value=0.45, max_value=3.0),
    row=st.floats(min_value=1.0, max_value=4.0),
)
def test_a_row_is_never_sized_above_its_height_nor_below_its_words(height: float, rise: float, row: float) -> None:
    """Whatever the pieces' heights, the size only ever comes down, and never under the words'."""
    words = [_word("DD", 100.0, height), _word("FORM", 100.0, height), _word("Page", 100.0 - rise * height, height)]
    size = row_size(row * height, words)
    assert size <= row * height
    assert size >= min(row, ROW_PER_WORD) * height * (1 - 1e-9)
    if row > MAX_ROW_PER_WORD:
        assert size == pytest.approx(ROW_PER_WORD * height)
