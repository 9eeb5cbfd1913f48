"""Small text helpers shared by the engines and the layout code."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_CJK_RANGES = (
    (0x3000, 0x303F),  # CJK punctuation
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),  # full-width forms
    (0x20000, 0x2FA1F),
)
# Scripts written without spaces between words: Thai and Lao (U+0E00-U+0EFF), Myanmar, Khmer, kana
# (hiragana, katakana and their extensions) and the CJK ranges above. A line break or an OCR
# engine's split between two of their characters is not a word gap.
_SPACELESS_RANGES = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),
    (0xFF65, 0xFF9F),  # half-width katakana
    *_CJK_RANGES,
)

# PDFium marks a hyphen it found at a line end with U+0002 (per character) or U+FFFE (in the page
# text); a soft hyphen (U+00AD) is the same promise from the document itself.
HYPHEN_MARKS = "\x02\ufffe\u00ad"
_MARK_AT_END = re.compile(f"[{HYPHEN_MARKS}]$")
# A word broken at a line end: letters, then a hyphen, continued by a lower-case letter.
_BROKEN = re.compile(r"(?<=[^\W\d_])-$")


def is_spaceless(ch: str) -> bool:
    """A character of a script that puts no space between words (Thai, Lao, Khmer, Myanmar, Han,
    kana), its combining marks included."""
    return _in(_SPACELESS_RANGES, ch)


# Scripts an OCR engine cuts into pieces smaller than the printed words: Thai and Lao, Myanmar,
# Khmer and Hangul (Tesseract returns Thai a cluster or two at a time and splits Korean words
# into syllables). Between two of their pieces only the engine's own blank says a space was printed.
_PIECEWISE_RANGES = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1100, 0x11FF),  # Hangul jamo
    (0x1780, 0x17FF),
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xAC00, 0xD7AF),
)


def _in(ranges: tuple[tuple[int, int], ...], ch: str) -> bool:
    """Whether ``ch`` lies in one of ``ranges`` (the first of them starting lowest: a Latin letter
    is told at once, before the ranges are gone through)."""
    code = ord(ch)
    return code >= ranges[0][0] and any(lo <= code <= hi for lo, hi in ranges)


def piece_gap(before: str, after: str, blank_printed: bool) -> str:
    """The separator between two pieces an engine recognised on one line: between pieces of a
    script it cuts finer than words (``_PIECEWISE_RANGES``) a space only where the engine saw a
    blank; elsewhere as ``word_gap``."""
    if _in(_PIECEWISE_RANGES, before[-1]) and _in(_PIECEWISE_RANGES, after[0]):
        return " " if blank_printed else ""
    return word_gap(before, after)


def word_gap(before: str, after: str) -> str:
    """The separator between two recognised words or lines: none between two characters of scripts
    written without spaces, one space otherwise."""
    return "" if is_spaceless(before[-1]) and is_spaceless(after[0]) else " "


MAX_WIDE_SHARE_IN_CODE = 0.3  # a code line may carry a Chinese comment; more CJK than this is prose


def mostly_wide(text: str) -> bool:
    """Whether more than ``MAX_WIDE_SHARE_IN_CODE`` of the visible characters are East Asian wide
    (ideographs, kana, full-width forms): such a line is prose, even in a fixed-pitch font
    (every ideograph is one em wide, so CJK fonts carry the FixedPitch flag and CJK text keeps a
    regular pitch)."""
    if text.isascii():  # no wide character (most of a Latin page's lines)
        return False
    chars = [ch for ch in text if not ch.isspace()]
    return sum(map(is_wide, chars)) > MAX_WIDE_SHARE_IN_CODE * len(chars)


def is_wide(ch: str) -> bool:
    """An East Asian wide or full-width character (one em across)."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def is_unwanted(ch: str) -> bool:
    """Control, surrogate, unassigned-noncharacter and format characters other than the joiners
    scripts need: none of them is text a reader sees, and some break JSON viewers or terminals."""
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cs"):
        return True
    code = ord(ch)
    if (code & 0xFFFE) == 0xFFFE or 0xFDD0 <= code <= 0xFDEF:  # noncharacters
        return True
    return cat == "Cf" and ch not in "\u200c\u200d"


# Thai and Lao SARA AM written as its two parts (NIKHAHIT then SARA AA), as Tesseract reads it and
# some fonts map it: NFC leaves them apart (the one letter decomposes only under compatibility).
_SARA_AM = re.compile("\u0e4d\u0e32|\u0ecd\u0eb2")


def composed(text: str) -> str:
    """``text`` in Unicode's composed form (NFC: a Vietnamese "ệ" is one character whether a PDF
    or an engine gave it as "e" plus two marks), Thai and Lao SARA AM as one letter: the form
    search and comparison expect."""
    return unicodedata.normalize("NFC", _SARA_AM.sub(lambda m: chr(ord(m.group()[0]) - 0x1A), text))


def clean_text(text: str) -> str:
    """A word or line as a reader sees it: a hyphenation mark at the end becomes "-", marks
    inside a word (a soft hyphen where no break fell) go, and so does every other invisible
    control or format character. Whitespace is kept as one space (tabs, line breaks). The
    result is ``composed``. Printable text, most of what a page reads, holds none of these and
    is given back as it is (composed, when not ASCII): the whole of this, per word and line, cost
    0.03-0.05 s of one core on a 200-dpi English scan, and as much on a Russian one."""
    if text.isprintable():  # no control, format, noncharacter or hyphenation mark; no space but " "
        return text if text.isascii() else composed(text)
    text = _MARK_AT_END.sub("-", text)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" " if ch != " " else ch)
        elif not is_unwanted(ch) and ch not in HYPHEN_MARKS:
            out.append(ch)
    return composed("".join(out))


def join_words(words: list[str]) -> str:
    """Join recognised words with spaces, except between characters of scripts written without
    them (``word_gap``): a Thai paragraph's line break falls inside a word."""
    out = ""
    for word in words:
        if not word:
            continue
        if out:
            out += word_gap(out, word)
        out += word
    return out


def join_lines(lines: list[str]) -> str:
    """Join the lines of a paragraph; a word hyphenated across a line end ("com-" over "mands")
    becomes one word again. A hyphen before a capital or a digit stays ("Franco-" "German")."""
    out = ""
    for line in lines:
        if not line:
            continue
        if out and _BROKEN.search(out) and line[0].islower():
            out = out[:-1] + line
        else:
            out = join_words([out, line]) if out else line
    return out


def replaced_in_place(text: str, old: Sequence[str], new: Sequence[str]) -> str:
    """``text`` (a line's) with each of ``old`` (its words, found in turn) replaced by ``new``'s at
    the same place, its spacing kept; ``text`` as it was when one of ``old`` is not found in it."""
    out, rest = "", text
    for before, after in zip(old, new, strict=True):
        at = rest.find(before)
        if at < 0:
            return text
        out += rest[:at] + after
        rest = rest[at + len(before) :]
    return out + rest
