"""Text layers from producers other than TeX: sizes set by the text matrix or the CTM (Quartz,
Distiller), letter-spaced titles, reference markers, turned lines."""

from __future__ import annotations

import pytest
from producers import SECTIONS, WRITERS, Run, page_pdf, report_runs

from ocrqueue.documents.model import PageResult

from .helpers import run


def _page(data: bytes) -> PageResult:
    page = run(data).pages[0]
    assert page.source == "text_layer"
    return page


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_sizes_set_by_the_text_matrix_make_headings_and_paragraphs(writer: str) -> None:
    """Size 1 in ``Tf`` scaled to 10, 14 and 20 pt by the text matrix or the CTM: each line has
    the size it is drawn at, so the headings are headings and each paragraph is one block."""
    page = _page(page_pdf(report_runs(), writer))
    sizes = {ln.text: ln.font_size for b in page.blocks for ln in b.lines}
    assert sizes["Queue Reliability Report"] == pytest.approx(20.0)
    assert sizes["Method"] == pytest.approx(14.0)
    assert sizes[SECTIONS[0][1][0]] == pytest.approx(10.0)
    titles = [(b.text, b.level) for b in page.blocks if b.type == "title"]
    assert titles == [("Queue Reliability Report", 1), ("Introduction", 2), ("Method", 2), ("Results", 2)]
    paragraphs = [b for b in page.blocks if b.type == "text"]
    assert [len(b.lines) for b in paragraphs] == [len(body) for _, body in SECTIONS]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_letter_spaced_titles_are_one_heading_with_their_word_spaces(writer: str) -> None:
    """Titles written a glyph at a time, a fifth and three fifths of an em apart, come back as
    their words, one heading each, with the word space between "ANNUAL" and "REPORT" kept; the
    body is untouched."""
    runs = [
        Run(72.0, 60.0, 18.0, ["ANNUAL REPORT"], "F2"),
        Run(72.0, 110.0, 18.0, ["合肥工业大学"], "F3"),
        Run(72.0, 160.0, 10.0, SECTIONS[0][1]),
    ]
    page = _page(page_pdf(runs, writer, spacing={0: 0.2, 1: 0.6}))
    assert [(b.type, b.text) for b in page.blocks] == [
        ("title", "ANNUAL REPORT"),
        ("title", "合肥工业大学"),
        ("text", " ".join(SECTIONS[0][1])),
    ]
    assert [w.text for w in page.blocks[0].lines[0].words] == ["ANNUAL", "REPORT"]


def test_evenly_spaced_single_letters_far_apart_stay_apart() -> None:
    """Single letters two ems apart are a row of a table or a scale (A B C D), not a word."""
    page = _page(
        page_pdf([Run(72.0, 60.0, 10.0, ["ABCD"]), Run(72.0, 90.0, 10.0, SECTIONS[1][1])], "distiller", {0: 2.0})
    )
    assert page.blocks[0].lines[0].text == "A B C D"
