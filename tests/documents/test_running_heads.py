"""Running heads are short, set apart and not prose; nothing of the body vanishes as a "header"."""

from __future__ import annotations

from generate import ENGLISH, SECTION_AFTER, SECTION_BODY, SECTION_SENTENCE, PdfBuilder, section_pages_pdf

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import is_prose
from ocrqueue.documents.model import Line

from .helpers import run


def test_first_line_of_every_page_stays_in_the_body() -> None:
    """The generated 1,000-page PDF's pages, a few of them: each begins "Section N. Durable queues
    ..." on a long line that runs on into its paragraph."""
    result = run(section_pages_pdf(4))
    markdown = result.to_markdown()
    for n, page in enumerate(result.pages, start=1):
        assert [b.type for b in page.blocks] == ["text", "text", "footer"]
        first = f"Section {n}. {SECTION_SENTENCE} In short, {' '.join(SECTION_BODY)}"
        assert page.blocks[0].text == first
        assert first in markdown
    assert markdown.count(SECTION_AFTER[0]) == 4


def test_first_line_stays_in_the_body_when_read_by_ocr() -> None:
    page = run(section_pages_pdf(1), mode="ocr").pages[0]
    body = [b for b in page.blocks if b.type not in ("header", "footer")]
    assert body[0].text.startswith("Section 1. Durable queues")
    assert "header" not in [b.type for b in page.blocks]


def test_a_sentence_alone_at_the_top_is_body_but_a_title_line_is_a_header() -> None:
    pdf = PdfBuilder()
    pdf.add_page(
        [
            PdfBuilder.text(72, 30, 9, "Journal of Durable Queues, volume 3"),
            PdfBuilder.text(300, 30, 9, "17"),
            *[PdfBuilder.text(72, 90 + i * 14, 11, line) for i, line in enumerate(ENGLISH)],
        ]
    )
    pdf.add_page(
        [
            PdfBuilder.text(72, 30, 11, ENGLISH[0]),
            *[PdfBuilder.text(72, 90 + i * 14, 11, line) for i, line in enumerate(ENGLISH[1:])],
        ]
    )
    first, second = run(pdf.build()).pages
    assert [b.text for b in first.blocks if b.type == "header"] == ["Journal of Durable Queues, volume 3", "17"]
    assert second.blocks[0].type == "text" and second.blocks[0].text == ENGLISH[0]


def test_prose_is_a_sentence_or_running_text() -> None:
    def line(text: str) -> Line:
        return Line(text, BBox(0, 0, 100, 10))

    assert is_prose([line("Durable queues keep every task until a worker finishes it.")])
    assert is_prose([line("Section 4. Durable queues keep every task until a worker")])
    assert not is_prose([line("IEEE TRANSACTIONS ON PATTERN ANALYSIS AND MACHINE INTELLIGENCE VOL 37")])
    assert not is_prose([line("Chapter 8: Probability distributions")])
    assert not is_prose([line("Proceedings of the Conference on Durable Queues, pages 1-10")])
