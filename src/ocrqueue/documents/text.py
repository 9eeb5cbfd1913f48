"""Small text helpers shared by the engines and the layout code."""

from __future__ import annotations

_CJK_RANGES = (
    (0x3000, 0x303F),  # CJK punctuation
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),  # full-width forms
    (0x20000, 0x2FA1F),
)


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


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
