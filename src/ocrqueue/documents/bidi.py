"""Right-to-left lines from visual order (left to right on the page) back to logical order.

A PDF draws glyphs where they sit on the page; a right-to-left line read left to right comes out
backwards, with its numbers and Latin words the right way round. This is the part of the Unicode
bidirectional algorithm (UAX #9) that a line drawn without explicit embeddings needs: levels from
the characters' bidi classes (weak types resolved, neutrals between runs of one direction take
it), then runs reversed level by level. Applied to a visual line it gives the logical one back,
because reversing by these levels undoes itself for such lines.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_STRONG_RTL = frozenset(("R", "AL"))
# Hebrew to NKo and Samaritan to Arabic Extended, the Hebrew and Arabic presentation forms, and
# the right-to-left blocks beyond the Basic Multilingual Plane.
_RTL_BLOCKS = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
_NUMBER = frozenset(("EN", "AN"))
# Characters a right-to-left run draws mirrored: a visual ")" is a logical "(" there.
_MIRRORS = dict(zip("()[]{}<>«»\u2039\u203a", ")(][}{><»«\u203a\u2039", strict=True))
# Arabic and Hebrew presentation forms: shaped glyphs some PDFs map to instead of the letters.
_PRESENTATION_FORMS = ((0xFB1D, 0xFDFF), (0xFE70, 0xFEFE))


def is_rtl(ch: str) -> bool:
    return unicodedata.bidirectional(ch) in _STRONG_RTL


def has_rtl(text: str) -> bool:
    """Whether a right-to-left letter is in ``text``: a search for the blocks that hold them
    first (a page of Latin text asks this once a line), their bidi classes then."""
    return any(unicodedata.bidirectional(m.group()) in _STRONG_RTL for m in _RTL_BLOCKS.finditer(text))


def logical_is_rtl(text: str) -> bool:
    """Whether a line in logical order is a right-to-left paragraph: its first strong character
    is a right-to-left letter (UAX #9 rule P2)."""
    for ch in text:
        d = unicodedata.bidirectional(ch)
        if d == "L" or d in _STRONG_RTL:
            return d != "L"
    return False


def visual_is_rtl(visual: str) -> bool:
    """Whether a line given in visual order is a right-to-left paragraph: its logical start is
    then its rightmost strong character. When the two ends disagree, the direction most of its
    letters take."""
    strong = [d for d in map(unicodedata.bidirectional, visual) if d == "L" or d in _STRONG_RTL]
    if not strong:
        return False
    left, right = strong[0] in _STRONG_RTL, strong[-1] in _STRONG_RTL
    if left == right:
        return right
    rtl = sum(d in _STRONG_RTL for d in strong)
    return 2 * rtl >= len(strong)


def _classes(text: str) -> list[str]:
    """Each character's class, simplified: "L", "R", "EN", "AN" or "N" (neutral), with the weak
    rules of UAX #9 that decide where numbers end (separators between digits, terminators next
    to them, marks taking the class before them)."""
    out: list[str] = []
    strong_before = ""
    for ch in text:
        d = unicodedata.bidirectional(ch) or "ON"
        if d == "NSM":
            d = out[-1] if out else "N"
        elif d in ("L", "R", "AL"):
            strong_before = d
        elif d == "EN" and strong_before == "AL":
            d = "AN"  # W2: digits in Arabic text are Arabic numbers (a "%" beside them does not join them)
        elif d not in ("EN", "AN", "ES", "CS", "ET"):
            d = "N"
        out.append(d)
    for i, d in enumerate(out):
        if d in ("ES", "CS") and 0 < i < len(out) - 1 and out[i - 1] in _NUMBER and out[i + 1] == out[i - 1]:
            out[i] = out[i - 1]
    for i, d in enumerate(out):
        if d == "ET":
            j = i
            while j < len(out) and out[j] == "ET":
                j += 1
            near_number = (i > 0 and out[i - 1] == "EN") or (j < len(out) and out[j] == "EN")
            for k in range(i, j):
                out[k] = "EN" if near_number else "N"
    return ["R" if d == "AL" else "N" if d in ("ES", "CS", "ET") else d for d in out]


def levels(text: str, rtl: bool) -> list[int]:
    """Embedding levels (even: left to right) of a line without explicit embeddings."""
    base = 1 if rtl else 0
    classes = _classes(text)
    strong_before = "R" if rtl else "L"
    for i, d in enumerate(classes):  # W7: a European number after Latin text is Latin text
        if d in ("L", "R"):
            strong_before = d
        elif d == "EN" and strong_before == "L":
            classes[i] = "L"
    direction = ["R" if d in ("R", "EN", "AN") else d for d in classes]  # N1: numbers count as R
    n = len(direction)
    i = 0
    while i < n:
        if direction[i] != "N":
            i += 1
            continue
        j = i
        while j < n and direction[j] == "N":
            j += 1
        before = direction[i - 1] if i > 0 else ("R" if rtl else "L")
        after = direction[j] if j < n else ("R" if rtl else "L")
        resolved = before if before == after else ("R" if rtl else "L")
        for k in range(i, j):
            direction[k] = resolved
        i = j
    out = []
    for cls, d in zip(classes, direction, strict=True):
        if cls in _NUMBER:
            out.append(base + 1 if rtl else 2)
        elif d == "R":
            out.append(base if rtl else 1)
        else:
            out.append(base + 1 if rtl else 0)
    return out


def reorder(text_levels: Sequence[int]) -> list[int]:
    """The order of positions after reversing every run at each level from the highest down to
    the lowest odd one (UAX #9 rule L2)."""
    order = list(range(len(text_levels)))
    if not order:
        return order
    lowest_odd = min(level for level in text_levels if level % 2 == 1) if any(lv % 2 for lv in text_levels) else None
    if lowest_odd is None:
        return order
    for level in range(max(text_levels), lowest_odd - 1, -1):
        i = 0
        while i < len(order):
            if text_levels[order[i]] < level:
                i += 1
                continue
            j = i
            while j < len(order) and text_levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j
    return order


def visual_to_logical(visual: str, rtl: bool) -> list[int]:
    """Positions of the visual line in logical order."""
    return reorder(levels(visual, rtl))


def logical_text(visual: str, rtl: bool | None = None) -> str:
    """The logical text of a line given in visual order, mirrored brackets turned back."""
    if rtl is None:
        rtl = visual_is_rtl(visual)
    text_levels = levels(visual, rtl)
    return "".join(
        _MIRRORS.get(visual[i], visual[i]) if text_levels[i] % 2 else visual[i] for i in reorder(text_levels)
    )


def mirrored(ch: str, level: int) -> str:
    return _MIRRORS.get(ch, ch) if level % 2 else ch


def normalise_presentation_forms(text: str) -> str:
    """Arabic and Hebrew presentation forms (a shaped letter, a lam-alef ligature) as the letters
    they stand for, so searches find them; NFKC on those characters only."""
    if not any(lo <= ord(ch) <= hi for ch in text for lo, hi in _PRESENTATION_FORMS):
        return text
    return "".join(
        unicodedata.normalize("NFKC", ch) if any(lo <= ord(ch) <= hi for lo, hi in _PRESENTATION_FORMS) else ch
        for ch in text
    )


def visual_order(logical: str, rtl: bool) -> str:
    """The visual order of a logical line (what a display draws left to right), brackets mirrored:
    the inverse of ``logical_text`` for lines without explicit embeddings."""
    text_levels = levels(logical, rtl)
    return "".join(mirrored(logical[i], text_levels[i]) for i in reorder(text_levels))
