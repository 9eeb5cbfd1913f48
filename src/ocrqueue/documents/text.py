"""Small text helpers shared by the engines and the layout code."""

from __future__ import annotations

import re
import unicodedata

_CJK_RANGES = (
    (0x3000, 0x303F),  # CJK punctuation
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),  # full-width forms
    (0x20000, 0x2FA1F),
)

# PDFium marks a hyphen it found at a line end with U+0002 (per character) or U+FFFE (in the page
# text); a soft hyphen (U+00AD) is the same promise from the document itself.
HYPHEN_MARKS = "\x02\ufffe\u00ad"
_MARK_AT_END = re.compile(f"[{HYPHEN_MARKS}]$")
# A word broken at a line end: letters, then a hyphen, continued by a lower-case letter.
_BROKEN = re.compile(r"(?<=[^\W\d_])-$")


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


MAX_WIDE_SHARE_IN_CODE = 0.3  # a code line may carry a Chinese comment; more CJK than this is prose


def mostly_wide(text: str) -> bool:
    """Whether more than ``MAX_WIDE_SHARE_IN_CODE`` of the visible characters are East Asian wide
    (ideographs, kana, full-width forms): such a line is prose, even in a fixed-pitch font
    (every ideograph is one em wide, so CJK fonts carry the FixedPitch flag and CJK text keeps a
    regular pitch)."""
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


def clean_text(text: str) -> str:
    """A word or line as a reader sees it: a hyphenation mark at the end becomes "-", marks
    inside a word (a soft hyphen where no break fell) go, and so does every other invisible
    control or format character. Whitespace is kept as one space (tabs, line breaks)."""
    text = _MARK_AT_END.sub("-", text)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" " if ch != " " else ch)
        elif not is_unwanted(ch) and ch not in HYPHEN_MARKS:
            out.append(ch)
    return "".join(out)


def join_words(words: list[str]) -> str:
    """Join recognised words with spaces, except between CJK characters (which take none)."""
    out = ""
    for word in words:
        if not word:
            continue
        if out and not (is_cjk(out[-1]) and is_cjk(word[0])):
            out += " "
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
