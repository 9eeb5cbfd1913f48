"""A scanner's OCR layer that sets its words letter-spaced and draws each word's last letter apart
("9 Nort h Buon a Vist a Driv e" for "9 North Buona Vista Drive", an Epson scanner's PDF): a space
no wider than the gaps between the word's own letters separates no words."""

from __future__ import annotations

import pytest
from generate import PdfBuilder

from .helpers import run

# Helvetica's advance widths (per 1000 of the size) of the letters drawn here.
ADVANCES = [556, 722, 556, 333, 278, 556, 667, 556, 556, 556, 667, 222, 500, 722, 500, 556]
WIDTHS = dict(zip("9NorthBuanVisDve", ADVANCES, strict=True))
SIZE = 10.0
LETTER_GAP = 2.5  # Tc: points between letters, a quarter of the size
WORD_GAP = 6.0  # points of blank paper between two words


def _cut_line(words: list[str], top: float) -> list[str]:
    """Each word drawn letter-spaced as two text objects, its last letter apart (where its letter
    spacing puts it), the words a real space apart."""
    baseline = PdfBuilder.HEIGHT - top - SIZE * 0.8
    ops, x = [], 72.0
    for word in words:
        for piece in (word[:-1], word[-1]) if len(word) > 1 else (word,):
            ops.append(f"BT /F1 {SIZE} Tf {LETTER_GAP} Tc {x:.2f} {baseline:.2f} Td ({piece}) Tj ET")
            x += sum(WIDTHS[ch] for ch in piece) * SIZE / 1000 + LETTER_GAP * len(piece)
        x += WORD_GAP
    return ops


@pytest.mark.parametrize("char_boxes", [False, True])
def test_letters_cut_off_their_word_are_joined_and_word_spaces_kept(char_boxes: bool) -> None:
    pdf = PdfBuilder()
    pdf.add_page(
        [
            *_cut_line(["9", "North", "Buona", "Vista", "Drive"], 100.0),
            PdfBuilder.text(72.0, 160.0, SIZE, "I saw a cat by a tree at 9 a.m. on a Monday"),
        ]
    )
    page = run(pdf.build(), char_boxes=char_boxes).pages[0]
    assert page.source == "text_layer"
    lines = [ln for b in page.blocks for ln in b.lines]
    assert [w.text for w in lines[0].words] == ["9", "North", "Buona", "Vista", "Drive"]
    assert lines[1].text == "I saw a cat by a tree at 9 a.m. on a Monday"
    if char_boxes:
        assert all(len(w.chars) == len(w.text) for ln in lines for w in ln.words)
