"""How many lines a title may run to (layout/blocks.py ``classify``), on synthetic lines in points."""

from __future__ import annotations

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import TITLE_MAX_LINES, build_blocks
from ocrqueue.documents.model import Line

BODY = 9.5
LARGE = 14.0


def _block(texts: list[str]) -> list[tuple[str, str]]:
    lines = [Line(t, BBox(300, 500 + 16 * i, 430, 500 + 16 * i + LARGE), 1.0, (), LARGE) for i, t in enumerate(texts)]
    return [(b.type, b.text) for b in build_blocks(lines, 842, BODY)]


def test_a_headline_wrapped_to_four_lines_of_a_narrow_column_is_one_title() -> None:
    headline = ["Modified", "version of the", "document", "means any"]
    assert len(headline) > TITLE_MAX_LINES
    assert _block(headline) == [("title", "Modified version of the document means any")]


@pytest.mark.parametrize("count", [4, 5])
def test_sentences_in_large_type_over_more_lines_stay_text(count: int) -> None:
    """A slide's points or a standfirst in large type are prose, not a heading."""
    sentence = ["The committee met on", "Tuesday to review the", "plans for the harbour", "and the new pier.", "It"]
    assert _block(sentence[:count])[0][0] == "text"
