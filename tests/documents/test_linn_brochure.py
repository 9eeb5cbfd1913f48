"""OCRmyPDF's two-column brochure scan `linn.png` (its true text in `linn.txt`): columns read in
order, bullets read as "¢", "e" or "©" become list items, prose is not over-escaped."""

from __future__ import annotations

import re

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import restore_bullets
from ocrqueue.documents.model import Line

from .helpers import run
from .test_ocrmypdf_corpus import corpus


def test_linn_brochure_columns_bullets_and_escaping() -> None:
    markdown = run((corpus() / "linn.png").read_bytes()).to_markdown()
    flat = re.sub(r"\s+", " ", markdown)
    # "Recording a Sequence": the left column's paragraphs run on, then the right column follows.
    assert "then play your MIDI keyboard in time to the Sequencer’s click track." in flat  # noqa: RUF001 (the scan's own apostrophe)
    assert "Any additional notes played will be added into the track" in flat
    left_end = flat.index("sustain pedal, and program changes!")
    right_start = flat.index("simply use LOCATE, FAST FORWARD, or REWIND to find the desired bar number")
    assert flat.index("To record a sequence, simply press RECORD and PLAY") < left_end < right_start
    # The features list: every bullet a list item, no bullet misread left in the text.
    items = [line[2:] for line in markdown.splitlines() if line.startswith("- ")]
    assert any(item.startswith("Operation is similar to multi-track tape recorder") for item in items)
    assert any(item.startswith("Optional remote control") for item in items)
    assert len(items) >= 18  # nine features and ten additional features (one may merge)
    assert not re.search(r"(?m)(^|\. )[¢©e] [A-Z]", markdown)
    assert "¢" not in markdown and "©" not in markdown
    # Plain prose stays plain.
    assert "synthesizers!" in markdown and "\\!" not in markdown
    assert "(Timing correction may be adjusted" in markdown and "\\(" not in markdown


def test_bullet_misreads_become_bullets_only_in_a_run() -> None:
    def line(text: str) -> Line:
        return Line(text, BBox(0, 0, 100, 10))

    restored = restore_bullets([line("¢ One"), line("e 2 apples"), line("e"), line("© Two"), line("o no")])
    assert [ln.text for ln in restored] == ["• One", "• 2 apples", "e", "• Two", "o no"]
    alone = [line("e Only one line starts so"), line("plain text")]
    assert [ln.text for ln in restore_bullets(alone)] == [ln.text for ln in alone]
