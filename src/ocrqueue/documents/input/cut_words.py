"""Words a text layer cut before their last letter ("Nort h Buon a Vist a"), joined again.

Some OCR layers (an Epson scanner's own) set every word letter-spaced to fit the scanned glyphs,
and PDFium puts a space where a gap between two text objects looks wide: the layer reads "9 Nort h
Buon a Vist a Driv e" where the page shows "9 North Buona Vista Drive". In a word set
letter-spaced, a gap narrower than a word space measured from its own letters (as for
letter-spaced titles, input/letter_spacing.py) separates no words. Only a piece of one character
at a word's end is joined: a word of one letter standing a real space away ("a", "I", "à", "-")
keeps it.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.letter_spacing import WORD_GAP_MIN_EMS, WORD_GAP_RATIO, joined_words
from ocrqueue.documents.model import Word
from ocrqueue.documents.text import is_wide

MIN_LETTERS = 2  # the word before the piece has at least this many letters to measure its gaps by
# The word is itself set letter-spaced: no two of its letters closer than this share of the line's
# height. Tight text is never joined: a word processor's "For a" has its "a" a real space away,
# however close the glyphs of "For" stand.
LETTER_SPACED = 0.15


def cut_apart(left: Sequence[BBox], right: Sequence[BBox], text: str) -> bool:
    """Whether a word of a horizontal line (``text``, its characters' boxes ``left``) and the single
    character after it (its box ``right``) are one word cut in two: the word is set letter-spaced,
    in no wide (East Asian) characters, and the gap to the character is narrower than a word space
    measured from the word's own letters as for letter-spaced titles (input/letter_spacing.py)."""
    if len(right) != 1 or len(left) < MIN_LETTERS or len(left) != len(text) or any(map(is_wide, text)):
        return False
    height = max(b.height for b in (*left, *right))
    inner = [b.x0 - a.x1 for a, b in itertools.pairwise(left)]
    letter_gap = statistics.median(inner)
    word_gap = max(WORD_GAP_RATIO * letter_gap, letter_gap + WORD_GAP_MIN_EMS * height)
    gap = right[0].x0 - left[-1].x1
    on_one_line = abs(left[-1].y1 - right[0].y1) <= 0.3 * height
    return on_one_line and min(inner) >= LETTER_SPACED * height and 0 <= gap < word_gap


def rejoin_cut_words(words: Sequence[Word], boxes: Sequence[Sequence[BBox]]) -> list[Word]:
    """``words`` of one line with each one-character piece that ``cut_apart`` finds cut off the
    end of the word before it joined to it. ``boxes`` holds each word's characters' boxes (empty
    where not asked for: only a piece and the word before it are looked at)."""
    out: list[Word] = []
    out_boxes: list[list[BBox]] = []
    for word, box in zip(words, boxes, strict=True):
        if (
            out
            and word.role is None
            and out[-1].role is None
            and _is_piece(word)
            and cut_apart(out_boxes[-1], box, out[-1].text)
        ):
            out[-1] = joined_words([out[-1], word])
            out_boxes[-1] = [*out_boxes[-1], *box]
        else:
            out.append(word)
            out_boxes.append(list(box))
    return out


def _is_piece(word: Word) -> bool:
    return len(word.text) == 1


def before_pieces(words: Sequence[Word]) -> set[int]:
    """Indices of one-character words and of the words before them: the only ones whose
    characters' boxes ``rejoin_cut_words`` needs."""
    return {j for i, w in enumerate(words) if i > 0 and _is_piece(w) for j in (i - 1, i)}
