"""Indic vowel signs drawn before their consonant, put back after it.

A vowel sign such as Devanagari I (U+093F "ि") is written after its consonant cluster but drawn
to the left of it. A PDF without ActualText for its clusters maps glyphs to text one by one, so
PDFium hands the sign back where it is drawn: "िहन्दी" for "हिन्दी", "स्थािपत" for "स्थापित". Such
a page is told by its signs in places the logical order never puts them (at a word's start, after
a vowel sign); on it every pre-base sign is moved after the cluster that follows it.
"""

from __future__ import annotations

import unicodedata

# Pre-base dependent vowel signs: Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil,
# Malayalam and Sinhala.
PRE_BASE = frozenset(
    "\u093f\u094e\u09bf\u09c7\u09c8\u0a3f\u0abf\u0b47\u0bc6\u0bc7\u0bc8\u0d46\u0d47\u0d48\u0dd9\u0dda\u0ddb"
)
_VIRAMAS = frozenset("\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0d4d\u0dca")
_NUKTAS = frozenset("\u093c\u09bc\u0a3c\u0abc\u0b3c")
VISUAL_MIN_SHARE = 0.25  # of a text's pre-base signs out of logical place: the text is in visual order


def _is_consonant(ch: str) -> bool:
    """An Indic letter that takes vowel signs (consonants; independent vowels take none)."""
    return unicodedata.category(ch) == "Lo" and "\u0900" <= ch <= "\u0dff" and "LETTER" in unicodedata.name(ch, "")


def _after_consonant(text: str, i: int) -> bool:
    return i > 0 and (_is_consonant(text[i - 1]) or text[i - 1] in _NUKTAS)


def in_visual_order(text: str) -> bool:
    """Whether ``text``'s pre-base vowel signs stand where they are drawn rather than where they
    are written: enough of them where the logical order never puts one."""
    signs = [i for i, ch in enumerate(text) if ch in PRE_BASE]
    misplaced = sum(not _after_consonant(text, i) for i in signs)
    return bool(signs) and misplaced >= VISUAL_MIN_SHARE * len(signs)


def logical_indices(text: str) -> list[int]:
    """The order of ``text``'s characters (indices into it) with every pre-base vowel sign that
    precedes a consonant moved after that consonant's cluster (consonant, nukta, and each virama
    with the consonant it joins)."""
    order: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in PRE_BASE and i + 1 < n and _is_consonant(text[i + 1]):
            end = i + 2
            while end < n and (
                text[end] in _NUKTAS or (text[end] in _VIRAMAS and end + 1 < n and _is_consonant(text[end + 1]))
            ):
                end += 2 if text[end] in _VIRAMAS else 1
            order.extend(range(i + 1, end))
            order.append(i)
            i = end
        else:
            order.append(i)
            i += 1
    return order


def logical(text: str) -> str:
    return "".join(text[i] for i in logical_indices(text))
