"""Greek kappa drawn as ϰ, which Tesseract's Greek model reads as χ, put back by the model's own words.

Greek TeX fonts (the CB fonts of Greek LaTeX documents) draw kappa in the form of ϰ; the ``Greek``
model has no ϰ among its letters and reads many of them as χ ("κώδικες" as "χώδιχες", "καὶ" as
"χαὶ"): on two dev elhyphen-modern scans 40 of 218 edits, and every such word lost to a search.
The model's own word list (its ``lstm-word-dawg``, 211,000 words, polytonic ones among them)
holds "κώδικες" and "καὶ" and neither "χώδιχες" nor "χαὶ": a word with χ that is not in the list,
and becomes a listed word with κ in place of some of its χ, is read so. A word with χ in the list
("ἔχει", "χώρα") stays, and so does one that no κ makes a word of, a word of one or two letters
("π.χ.") and a piece of a word cut at a hyphen (a syllable of "ἀ-πό-η-χος": "κος" is listed).
The list is taken out of the installed model with Tesseract's own tools (combine_tessdata,
dawg2wordlist, Debian's tesseract-ocr package) once a process; without them nothing changes.
"""

# ruff: noqa: RUF001, RUF002 (Greek letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

import functools
import itertools
import re
import unicodedata

from ocrqueue.documents.engines.word_lists import model_words

GREEK_MODEL = "Greek"
# Letter forms the word list writes otherwise (the model reads ϑ for some θ).
_LIST_FORMS = str.maketrans({"ϑ": "θ", "ϰ": "κ", "ϱ": "ρ", "ϕ": "φ", "ϖ": "π"})
_WORD = re.compile(r"[^\W\d_]+")
# A word with more χ than this is not searched (2**n spellings).
MOST_CHI = 4
# Shorter words are left as read: "π.χ." (for example) is no "π.κ.", though "κ" is in the list.
SHORTEST = 3
_HYPHENS = frozenset("-\u00ad\u2010\u2011")


@functools.cache
def word_list(tessdata: str, model: str = GREEK_MODEL) -> frozenset[str]:
    """The words of ``model``'s word list that hold κ or χ, NFC and lower case; empty when the
    model or the tools are missing or fail. Only words with κ or χ are ever looked up: the rest
    are not kept (a third are)."""
    return frozenset(key for key in map(_key, model_words(tessdata, model)) if "κ" in key or "χ" in key)


def _key(word: str) -> str:
    return unicodedata.normalize("NFC", word.translate(_LIST_FORMS)).lower()


def kappa_for_chi(text: str, words: frozenset[str]) -> str:
    """``text`` with each word of Greek letters that holds χ, is not in ``words`` and is with κ in
    place of some of its χ, so written (the most χ turned first; Χ becomes Κ)."""
    if not words or ("χ" not in text and "Χ" not in text):
        return text
    return _WORD.sub(lambda m: _mended(m.group(0), words) if _whole(m, text) else m.group(0), text)


def _whole(found: re.Match[str], text: str) -> bool:
    """Whether a word found in ``text`` may be mended: ``SHORTEST`` letters or more, and no
    piece of a word cut at a hyphen (a syllable, "ἀ-πό-η-χος", or a line's end)."""
    before = text[found.start() - 1] if found.start() else " "
    after = text[found.end()] if found.end() < len(text) else " "
    return len(found.group(0)) >= SHORTEST and before not in _HYPHENS and after not in _HYPHENS


def _mended(word: str, words: frozenset[str]) -> str:
    key = _key(word)
    places = [i for i, c in enumerate(key) if c == "χ"]
    if not places or len(places) > MOST_CHI or len(key) != len(word) or key in words:
        return word
    for count in range(len(places), 0, -1):
        for turned in itertools.combinations(places, count):
            if "".join("κ" if i in turned else c for i, c in enumerate(key)) in words:
                return "".join(("Κ" if c == "Χ" else "κ") if i in turned else c for i, c in enumerate(word))
    return word
