"""Rejoin words set letter-spaced ("T I T L E", "合 肥 工 业 大 学") into the words they are.

A letter-spaced title is written one glyph at a time with a gap between glyphs; PDFium puts a
space wherever the gap is wide, so the title comes out as one-letter words and the layout makes a
heading of each. In a run of one-letter words along a line the gaps between letters are alike;
a gap clearly wider than them is a real word space, and is kept.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from ocrqueue.documents.geometry import union
from ocrqueue.documents.model import Word

MIN_LETTERS = 3  # a run of fewer one-letter words is not told from "a b" or "I  A"
MAX_LETTER_GAP = 1.5  # ems: wider gaps between letters are columns or table cells, not spacing
WORD_GAP_RATIO = 1.6  # a gap this many times the letters' gap is a word space
WORD_GAP_MIN_EMS = 0.2  # ... and at least this much wider than the letters' gap


def _is_letter(word: Word) -> bool:
    return len(word.text) == 1 and word.text.isalpha()


def joined_words(words: Sequence[Word]) -> Word:
    """One word of ``words`` side by side on a line: their texts run together, their boxes and
    characters' boxes united, the least sure confidence."""
    confidences = [w.confidence for w in words if w.confidence is not None]
    return Word(
        "".join(w.text for w in words),
        union(w.bbox for w in words),
        min(confidences) if confidences else None,
        tuple(box for w in words for box in w.chars),
    )


def _spaced_run(letters: Sequence[Word], size: float) -> list[Word] | None:
    """The run's words when its letters are evenly spaced apart, or None when they are not."""
    gaps = [b.bbox.x0 - a.bbox.x1 for a, b in itertools.pairwise(letters)]
    if any(g < -0.1 * size for g in gaps):
        return None  # not one after another along a horizontal line
    letter_gap = max(0.0, min(gaps))
    if letter_gap > MAX_LETTER_GAP * size:
        return None
    word_gap = max(WORD_GAP_RATIO * letter_gap, letter_gap + WORD_GAP_MIN_EMS * size)
    words: list[list[Word]] = [[letters[0]]]
    for gap, letter in zip(gaps, letters[1:], strict=True):
        if gap >= word_gap:
            words.append([letter])
        else:
            words[-1].append(letter)
    inner = [g for g in gaps if g < word_gap]
    if not inner or max(inner) - min(inner) > 0.25 * max(size, statistics.median(inner)):
        return None  # uneven: single letters that happen to stand side by side
    return [joined_words(w) for w in words]


def rejoin_letter_spaced(words: Sequence[Word], size: float | None) -> list[Word]:
    """``words`` of one horizontal line with each run of evenly spaced single letters joined into
    its words; other words untouched."""
    if size is None or size <= 0 or sum(map(_is_letter, words)) < MIN_LETTERS:
        return list(words)
    out: list[Word] = []
    run: list[Word] = []
    for word in [*words, None]:
        if word is not None and _is_letter(word):
            run.append(word)
            continue
        joined = _spaced_run(run, size) if len(run) >= MIN_LETTERS else None
        out.extend(joined if joined is not None else run)
        run = []
        if word is not None:
            out.append(word)
    return out
