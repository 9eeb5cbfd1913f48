"""input/cut_words.py: a one-character piece is joined to the word beside it only when the space
between them is no wider than the gaps between that word's own characters."""

from __future__ import annotations

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.cut_words import before_pieces, cut_apart, rejoin_cut_words
from ocrqueue.documents.model import Word


def _chars(x: float, n: int, pitch: float, width: float = 5.0) -> list[BBox]:
    return [BBox(x + i * pitch, 100.0, x + i * pitch + width, 110.0) for i in range(n)]


def _word(text: str, boxes: list[BBox]) -> Word:
    return Word(text, BBox(boxes[0].x0, 100.0, boxes[-1].x1, 110.0), 1.0)


def test_a_letter_as_far_as_the_word_s_own_letters_are_apart_is_cut_off_it() -> None:
    nort = _chars(0.0, 4, 7.5)  # letters 2.5 apart
    assert cut_apart(nort, _chars(nort[-1].x1 + 2.5, 1, 7.5), "Nort")
    assert not cut_apart(nort, _chars(nort[-1].x1 + 6.0, 1, 7.5), "Nort")  # a real space
    assert not cut_apart(nort, _chars(nort[-1].x1 + 2.5, 1, 7.5), "日本語の")  # wide characters stand apart


def test_tight_words_keep_the_one_letter_word_after_them() -> None:
    saw = _chars(0.0, 3, 5.3)  # letters 0.3 apart: not letter-spaced, so a word space of 1.0 is one
    assert not cut_apart(saw, _chars(saw[-1].x1 + 1.0, 1, 5.3), "saw")
    assert not cut_apart(_chars(0.0, 1, 5.3), _chars(7.0, 1, 5.3), "a")  # nothing to measure by


def test_rejoin_looks_only_before_pieces() -> None:
    nort, h = _chars(0.0, 4, 7.5), _chars(30.0, 1, 7.5)
    far = _chars(55.0, 4, 7.5)
    words = [_word("Nort", nort), _word("h", h), _word("Buon", far)]
    assert before_pieces(words) == {0, 1}
    assert [w.text for w in rejoin_cut_words(words, [nort, h, far])] == ["North", "Buon"]
    assert before_pieces([_word("Buon", far)]) == set()
    bullet = _chars(0.0, 1, 7.5)
    assert [w.text for w in rejoin_cut_words([_word("•", bullet), _word("Nort", far)], [bullet, far])] == ["•", "Nort"]
