"""A right-to-left line put back into logical order, from where its letters sit on the page.

PDFium hands characters back in an order of its own on right-to-left lines: words in reading
order, but the letters of some words left to right as drawn, and the two letters of a lam-alef
ligature swapped ("الإنتاجية" comes back as "اإلنتاجية"). The boxes do not lie: sorted by where
they sit on the page they give the visual line, which ``bidi`` turns into the logical one. The two
letters of one ligature glyph share its box, split in two the way the glyph is drawn (lam on the
right), so they sort like any other letters. Tesseract gives each word of a right-to-left line
left to right as drawn, and the words right to left.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

from ocrqueue.documents.bidi import (
    has_rtl,
    levels,
    mirrored,
    normalise_presentation_forms,
    reorder,
    visual_is_rtl,
    visual_order,
)
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.model import Word
from ocrqueue.documents.text import composed


class Glyph(NamedTuple):
    """One character: its text, its box on the page, the word it was found in (words are the
    units that sit together on the page), that word's confidence, and where on the page (x) its
    glyph is drawn from, when known: glyphs drawn over each other (a lam-meem set by XeTeX) sort
    by that, not by their boxes."""

    text: str
    box: BBox
    word: int
    confidence: float | None = 1.0
    at: float | None = None
    meant: bool = False  # its brackets name the one meant, not the one drawn (a right-to-left model's reading)

    @property
    def place(self) -> float:
        return self.box.cx if self.at is None else self.at


_LAM = "\u0644"
_ALEFS = frozenset("\u0622\u0623\u0625\u0627")  # alef, with madda, hamza above, hamza below
# Letters of the Arabic block that join the letter before them but never the one after
# (ArabicShaping.txt's right-joining ones: alefs, dal, thal, reh, zain, jeh, waw, teh marbuta,
# Persian's heh with yeh above, Urdu's ddal, rreh, yeh barree and their kin) and hamza, which
# joins neither.
_JOINS_NO_NEXT = frozenset(
    "\u0621\u0622\u0623\u0624\u0625\u0627\u0629\u062f\u0630\u0631\u0632\u0648\u0671\u0672\u0673"
    "\u0675\u0676\u0677\u0688\u0689\u068a\u068b\u068c\u068d\u068e\u068f\u0690\u0691\u0692\u0693"
    "\u0694\u0695\u0696\u0697\u0698\u0699\u06c0\u06c3\u06c4\u06c5\u06c6\u06c7\u06c8\u06c9\u06ca"
    "\u06cb\u06cd\u06cf\u06d2\u06d3\u06d5"
)
ZWNJ = "\u200c"
# Two letters of a word that could join but stand this share of the font size apart or more were
# kept apart by a zero-width non-joiner, which Chromium's PDFs do not carry ("می‌شود" came back
# "میشود"). Dev gnome-terminal-fa (11-pt type): letters joined stood 0.2-0.41 pt apart (0.037 of
# the size), letters a non-joiner parts 0.71-2.2 pt (0.065-0.2); on the XeTeX lshort-fa pages
# and the Arabic gedit-ar ones it finds none.
ZWNJ_GAP = 0.05
_MARKS = "".join(chr(c) for c in range(0x064B, 0x0660)) + "\u0670"


def ligatures_joined(glyphs: Sequence[tuple[Glyph, tuple[float, float]]]) -> list[Glyph]:
    """Letters drawn by one glyph (they share its origin, page points: a lam-alef's ToUnicode
    gives two) as one glyph holding them in logical order, each glyph placed by its origin.
    PDFium splits such a glyph's box between its letters in an order of its own, so their boxes
    cannot order them; the lam of a lam-alef comes first. A letter and the marks drawn with it
    (Chromium writes "لّ" as one span of two glyphs, shadda and lam, starting where the shadda is
    drawn) share an origin too, and PDFium may hand them back apart, other letters of the word
    between ("لحيّل" for "يحلّل"): they are joined all the same, each mark after its letter."""
    out: list[Glyph] = []
    at: dict[tuple[int, tuple[float, float]], int] = {}  # (word, origin) -> its glyph in out
    for glyph, origin in glyphs:
        glyph = glyph._replace(at=origin[0]) if origin[0] == origin[0] else glyph  # not NaN
        k = at.get((glyph.word, origin))
        if k is None:
            at[(glyph.word, origin)] = len(out)
            out.append(glyph)
            continue
        text = out[k].text + glyph.text
        if len(text) == 2 and text[0] in _ALEFS and text[1] == _LAM:
            text = text[::-1]
        out[k] = out[k]._replace(text=_marks_after_letters(text), box=union([out[k].box, glyph.box]))
    return out


def _marks_after_letters(text: str) -> str:
    """A glyph's letters with marks that lead them moved after the first letter ("ُذ" as "ذُ")."""
    lead = len(text) - len(text.lstrip(_MARKS))
    if not lead or lead == len(text):
        return text
    return text[lead] + text[:lead] + text[lead + 1 :]


def _marks_joined(words: list[list[Glyph]]) -> list[list[Glyph]]:
    """Words (left to right) with a word of marks alone joined to the word it touches: Chromium
    draws the "هٔ" of "پایانهٔ" as a hamza whose box is a sliver above the line, which PDFium
    takes for a word of its own."""
    if len(words) < 2:
        return words
    height = max(g.box.height for word in words for g in word)
    boxes = [union(g.box for g in word) for word in words]
    out = [list(word) for word in words]
    for i in range(len(words)):
        if boxes[i].width >= 0.35 * height or not out[i]:
            continue
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(words) and out[j]]
        if not neighbours:
            continue
        gap, j = min((boxes[i].x0 - boxes[j].x1 if j < i else boxes[j].x0 - boxes[i].x1, j) for j in neighbours)
        if gap < 0.5 * height:
            out[j].extend(out[i])
            out[i] = []
    return [word for word in out if word]


def same_visual_line(a: Sequence[Glyph], b: Sequence[Glyph]) -> bool:
    """Whether two runs of letters sit on one line of the page: they share most of their height
    and no more than a line height lies between them (two columns have a wider gutter)."""
    if not a or not b:
        return False
    box_a, box_b = union(g.box for g in a), union(g.box for g in b)
    shared = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
    apart = max(box_a.x0, box_b.x0) - min(box_a.x1, box_b.x1)
    return shared >= 0.5 * min(box_a.height, box_b.height) and apart < max(box_a.height, box_b.height)


_SPACE = Glyph(" ", BBox(0.0, 0.0, 0.0, 0.0), -1)  # between two words of the visual line


def logical_words(
    glyphs: Sequence[Glyph], char_boxes: bool = False, rtl: bool | None = None, size: float = 0.0
) -> list[Word]:
    """The line's words in logical order, each with its letters in logical order (brackets
    turned back, presentation forms as the letters they stand for). ``glyphs`` are the visible
    ones (no spaces, no control characters), in any order. ``rtl``: the paragraph's direction
    when the line alone does not tell (a line of Latin text that ends a right-to-left paragraph
    has its full stop on the left); by default the line's own (``bidi.visual_is_rtl``). A PDF's
    glyphs name the bracket drawn (")" where a right-to-left run opens one) and are turned
    back; a glyph ``meant`` (a right-to-left OCR model's reading) names the one meant already.
    ``size``: the line's font size (points) when the glyphs are drawn ones, whose gaps then tell
    where a zero-width non-joiner kept two letters apart (``ZWNJ_GAP``)."""
    by_word: dict[int, list[Glyph]] = {}
    for glyph in glyphs:
        by_word.setdefault(glyph.word, []).append(glyph)
    visual: list[Glyph] = []
    for word in _marks_joined(sorted(by_word.values(), key=lambda g: union(x.box for x in g).cx)):
        if visual:
            visual.append(_SPACE)
        visual.extend(sorted(word, key=lambda g: g.place))
    text = "".join(g.text[0] for g in visual)
    text_levels = levels(text, visual_is_rtl(text) if rtl is None else rtl)
    words: list[Word] = []
    letters: list[Glyph] = []
    for i in [*reorder(text_levels), None]:
        if i is not None and visual[i] is not _SPACE:
            drawn = visual[i].text if visual[i].meant else mirrored(visual[i].text, text_levels[i])
            letter = normalise_presentation_forms(drawn)
            if letters and len(one := composed(letters[-1].text + letter)) == len(letters[-1].text):
                # a mark that composes with the letter before it (hamza above alef): one letter, one box
                letters[-1] = letters[-1]._replace(text=one, box=union([letters[-1].box, visual[i].box]))
            else:
                letters.append(visual[i]._replace(text=letter))
        elif letters:
            if size > 0:
                letters[:] = _non_joiners_kept(letters, size)
            boxes = tuple(g.box for g in letters for _ in g.text)
            known = [g.confidence for g in letters if g.confidence is not None]
            confidence = sum(known) / len(known) if known else None
            words.append(Word("".join(g.text for g in letters), union(boxes), confidence, boxes if char_boxes else ()))
            letters.clear()
    return words


def _non_joiners_kept(letters: list[Glyph], size: float) -> list[Glyph]:
    """A right-to-left word's letters (logical order) with a zero-width non-joiner between two
    that could join but stand ``ZWNJ_GAP`` of the font ``size`` apart or more. Letters boxed with a mark
    (their box is the mark's) and words that hold a non-joiner already are left as they are."""
    if len(letters) < 2 or any(ZWNJ in g.text for g in letters):
        return letters
    out = [letters[0]]
    for before, after in pairwise(letters):
        if (
            len(before.text) == len(after.text) == 1
            and _joins_next(before.text)
            and _joins_previous(after.text)
            and before.box.x0 - after.box.x1 >= ZWNJ_GAP * size
        ):
            out.append(after._replace(text=ZWNJ + after.text))
        else:
            out.append(after)
    return out


def _joins_next(letter: str) -> bool:
    return ("\u0620" <= letter <= "\u064a" or "\u066e" <= letter <= "\u06d3") and letter not in _JOINS_NO_NEXT


def _joins_previous(letter: str) -> bool:
    return ("\u0622" <= letter <= "\u064a" or "\u066e" <= letter <= "\u06d3") and letter != "\u0621"


def logical_order(words: Sequence[Word], meant: Sequence[bool] = ()) -> list[Word]:
    """Words of one line, each written left to right as drawn (an engine's visual order), as the
    line's words in logical order. Each letter gets an equal share of its word's box, which is
    all the sorting needs; a word that stays whole keeps its box. ``meant``: per word, whether
    the engine named its brackets as meant rather than as drawn. Tesseract's Arabic and Hebrew
    models name the bracket a right-to-left run means, "(" where it draws ")": turned again, a
    Persian "(می‌تواند" came back as ")می‌تواند" and «قرمز» as »قرمز«; its Latin models name
    what they see, so "(BiDi)" inside a Persian line needs turning back."""
    glyphs = []
    for number, word in enumerate(words):
        box, n = word.bbox, len(word.text)
        step = box.width / max(1, n)
        named = number < len(meant) and meant[number]
        for i, ch in enumerate(word.text):
            x = box.x0 + i * step
            glyphs.append(Glyph(ch, BBox(x, box.y0, x + step, box.y1), number, word.confidence, meant=named))
    return logical_words(glyphs)


def in_logical_order(words: Sequence[Word], rtl: bool | None = None) -> list[Word]:
    """Words of one row, each already in logical order and in any order on the page, in the
    row's logical order: right to left in a right-to-left row, with runs of Latin words and
    numbers kept left to right (the Unicode bidirectional algorithm on the row as drawn, each
    word taken whole). A row of left-to-right words only: left to right. ``rtl``: the row's
    direction when known; by default its own (``bidi.visual_is_rtl``)."""
    placed = sorted(words, key=lambda w: w.bbox.x0)
    if not any(has_rtl(w.text) for w in placed):
        return placed
    if rtl is None:
        rtl = visual_is_rtl(" ".join(w.text for w in placed))  # its ends and most of its letters tell
    drawn = [visual_order(w.text, rtl) for w in placed]
    owner: list[int] = []
    for k, text in enumerate(drawn):
        owner.extend([k] * len(text) + [-1])
    visual = " ".join(drawn)
    order: list[int] = []
    for i in reorder(levels(visual, rtl)):
        if owner[i] >= 0 and owner[i] not in order:
            order.append(owner[i])
    return [placed[k] for k in order]
