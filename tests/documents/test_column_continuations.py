"""A paragraph running on across a column break read as one paragraph (issue 22, point 5):
Chromium prints two justified columns of fixed height, the second paragraph flowing from the foot
of the first column to the head of the second; read from the text layer and from a 300-dpi
render, its two parts are two blocks (each in its column), the second marked ``continues``, and
the Markdown holds the paragraph whole. Before, the column break was a paragraph boundary."""

from __future__ import annotations

import random

import pytest
from rapidfuzz import fuzz

from .helpers import first_page_png, printed_by_chromium, run

_WORDS = ("harbour", "committee", "plans", "pier", "winter", "storm", "town", "council", "members", "water")
_GLUE = ("the", "and", "of", "for", "with", "on", "in", "at", "by", "from", "to", "over", "under")


def _run_on_paragraph(seed: int, words: int) -> str:
    """A sentence of ``words`` lowercase words after its first, ending in one full stop, so any
    line of it starts in lowercase and no line but its last ends a sentence."""
    rng = random.Random(seed)
    out = ["The"] + [rng.choice(_WORDS) if i % 2 else rng.choice(_GLUE) for i in range(words - 1)]
    return " ".join(out) + "."


OPENING = "Members of the harbour committee met on Tuesday. They reviewed the plans for the new pier."
RUN_ON = _run_on_paragraph(7, 190)
PAGE = f"""<html><body style="margin: 20mm; font: 11pt 'DejaVu Serif', serif; line-height: 1.35">
<div style="column-count: 2; column-gap: 12mm; column-fill: auto; height: 90mm; text-align: justify">
<p style="margin: 0 0 8pt 0">{OPENING}</p>
<p style="margin: 0">{RUN_ON}</p>
</div></body></html>"""


@pytest.mark.parametrize("path", ["text_layer", "render"])
def test_a_paragraph_across_the_column_break_is_one_paragraph(path: str) -> None:
    pdf = printed_by_chromium({"page": PAGE})["page"]
    result = run(pdf if path == "text_layer" else first_page_png(pdf, 300))
    blocks = result.pages[0].blocks
    continued = [b for b in blocks if b.continues]
    assert len(continued) == 1, [(b.type, b.text[:40], b.continues) for b in blocks]
    before = blocks[blocks.index(continued[0]) - 1]
    assert continued[0].bbox.x0 > before.bbox.x1 and continued[0].bbox.y0 < before.bbox.y0
    parts = result.to_markdown().split("\n\n")
    whole = [p for p in parts if fuzz.ratio(" ".join(p.split()), RUN_ON) >= 95]
    assert len(whole) == 1, parts
    assert any(fuzz.ratio(" ".join(p.split()), OPENING) >= 95 for p in parts)
