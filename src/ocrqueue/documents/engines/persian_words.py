"""Persian words Tesseract ran together, set apart again by the ``fas`` model's own word list.

Persian sets a space after a word that ends in a letter joining no letter after it (ا د ذ ر ز ژ و)
as narrow as the gaps inside its words, and justified XeTeX lines narrower still: read with
``Arabic+fas+eng``, a function word came back joined to its neighbour ("ورودیرا" for "ورودی را",
"بافشردن" for "با فشردن", "وپردازش" for "و پردازش", "کهبه" for "که به"), a word lost to a search
and two to the bag of words (dev lshort-fa p. 22 clean: 14 of its 349 words read). Persian writes
these words (``APART``: و, با, به, که, تا, از, در, را before a word, را after one) apart from
the word beside them. A word read that is not in the model's word list (``lstm-word-dawg``,
13,900 words) and is one of them and a listed word (the rest three letters or more, or another
of them) is read as the two. A listed word ("اجرا", "تابه", "بازی", "خودرا") stays, and so
does one whose rest is not listed. Without the list (model or tools missing) nothing changes.
"""

# ruff: noqa: RUF002 (Persian letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

import functools
import re
from dataclasses import replace

from ocrqueue.documents.engines.word_lists import model_words
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import replaced_in_place

PERSIAN_MODEL = "fas"
BEFORE = ("و", "با", "به", "که", "تا", "از", "در", "را")
AFTER = ("را",)
APART = frozenset(BEFORE + AFTER)
SHORTEST_REST = 3  # letters of the listed word left beside one of ``APART`` (or it is one of them)
# A word's letters (Arabic letters, their marks, the zero-width non-joiner inside it), then what
# follows them (a full stop, a comma).
_WORD = re.compile(r"([\u0621-\u064a\u066e-\u06d3\u06d5\u064b-\u065f\u0670\u200c]+)(.*)", re.DOTALL)


@functools.cache
def persian_words(tessdata: str) -> frozenset[str]:
    """The ``fas`` model's word list; empty without it."""
    return frozenset(model_words(tessdata, PERSIAN_MODEL))


def apart(text: str, words: frozenset[str]) -> tuple[str, str] | None:
    """A word read (logical order) as the two words Persian writes apart (``APART``), or None."""
    found = _WORD.fullmatch(text)
    if not words or found is None:
        return None
    letters, tail = found.groups()
    if letters in words:
        return None
    for lead in BEFORE:
        rest = letters[len(lead) :]
        if letters.startswith(lead) and _listed(rest, words):
            return lead, rest + tail
    for last in AFTER:
        head = letters[: -len(last)]
        if letters.endswith(last) and _listed(head, words):
            return head, last + tail
    return None


def _listed(word: str, words: frozenset[str]) -> bool:
    return word in words and (len(word) >= SHORTEST_REST or word in APART)


def words_apart(line: Line, words: frozenset[str]) -> Line:
    """``line`` (read right to left) with each word ``apart`` gives as two: two words, the first
    on the right of the box, each a share of it by its letters; the line as it was when none is."""
    out: list[Word] = []
    texts: list[str] = []
    for word in line.words:
        two = apart(word.text, words)
        if two is None:
            out.append(word)
            texts.append(word.text)
            continue
        first, second = two
        box = word.bbox
        cut = box.x1 - box.width * len(first) / (len(first) + len(second))
        out.append(replace(word, text=first, bbox=BBox(cut, box.y0, box.x1, box.y1), chars=()))
        out.append(replace(word, text=second, bbox=BBox(box.x0, box.y0, cut, box.y1), chars=()))
        texts.append(f"{first} {second}")
    text = replaced_in_place(line.text, [w.text for w in line.words], texts)
    return line if text == line.text else replace(line, text=text, words=tuple(out))
