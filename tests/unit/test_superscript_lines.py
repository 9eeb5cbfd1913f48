"""Lines PDFium ends before a reference marker (input/superscripts.py ``join_after_markers``).

InDesign sets a marker raised and smaller a little apart from the sentence before it; PDFium ends
the line there and opens the next with the marker, whose size the line then carries (7 pt in an
11 pt paragraph), so the paragraph broke in two around it. The lines here are as PDFium gave them
on such a page (a medical guideline's "bone metastases.395-397 Best"); the test PDFs PdfBuilder
writes do not make PDFium break the line.
"""

from __future__ import annotations

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.superscripts import join_after_markers
from ocrqueue.documents.layout.blocks import paragraphs
from ocrqueue.documents.model import Line, Word, line_text


def _line(words: list[tuple[str, float, float, float, float]], size: float) -> Line:
    made = tuple(Word(t, BBox(x0, y0, x1, y1), 1.0) for t, x0, y0, x1, y1 in words)
    box = BBox(
        min(w.bbox.x0 for w in made),
        min(w.bbox.y0 for w in made),
        max(w.bbox.x1 for w in made),
        max(w.bbox.y1 for w in made),
    )
    return Line(line_text(made), box, 1.0, made, size)


BEFORE = _line(
    [
        ("IMRT", 24.5, 374.3, 52.0, 384.7),
        ("can", 54.0, 374.3, 70.0, 384.7),
        ("be", 72.0, 374.3, 83.0, 384.7),
        ("used", 85.0, 374.3, 106.0, 384.7),
        ("for", 108.0, 374.3, 122.0, 384.7),
        ("local", 124.0, 374.3, 148.0, 384.7),
        ("symptoms.", 150.0, 374.3, 200.0, 384.7),
    ],
    11.0,
)
SENTENCE = _line(
    [
        ("therapy", 23.7, 389.4, 60.0, 399.8),
        ("or", 62.0, 389.4, 72.0, 399.8),
        ("denosumab", 74.0, 389.4, 125.0, 399.8),
        ("for", 127.0, 389.4, 141.0, 399.8),
        ("bone", 143.0, 389.4, 166.0, 399.8),
        ("metastases.", 168.0, 389.4, 331.5, 399.8),
    ],
    11.0,
)
MARKED = _line([("395-397", 332.8, 388.6, 357.8, 393.6), ("Best", 361.9, 389.5, 382.9, 397.6)], 7.0)
AFTER = _line(
    [
        ("supportive", 23.9, 404.7, 75.0, 414.9),
        ("care", 77.0, 404.7, 97.0, 414.9),
        ("is", 99.0, 404.7, 106.0, 414.9),
        ("also", 108.0, 404.7, 128.0, 414.9),
        ("recommended.", 130.0, 404.7, 208.5, 414.9),
    ],
    11.0,
)


def test_a_line_opening_with_a_marker_goes_back_on_the_line_before() -> None:
    lines = join_after_markers([BEFORE, SENTENCE, MARKED, AFTER])
    assert [ln.text for ln in lines][1] == "therapy or denosumab for bone metastases. 395-397 Best"
    assert lines[1].font_size == 11.0
    assert len(paragraphs(lines)) == 1


def test_a_small_line_below_is_no_marker() -> None:
    """A footnote in small type under the paragraph starts below it: it stays a line of its own."""
    note = _line([("1", 24.0, 402.0, 28.0, 409.0), ("See", 30.0, 402.0, 45.0, 409.0)], 7.0)
    assert len(join_after_markers([SENTENCE, note])) == 2
