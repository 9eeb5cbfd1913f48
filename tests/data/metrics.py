"""Accuracy measures shared by the tests and the benchmark."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from ocrqueue.documents.model import Block, Line, PageResult, line_text
from ocrqueue.documents.output.paragraphs import joined_paragraphs


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance with one rolling row (O(len(a) * len(b)) time, O(len(b)) memory)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _chars(text: str) -> str:
    """Compare characters only: NFKC (full-width punctuation = ASCII) and no whitespace at all,
    since engines differ in where they put spaces between CJK characters."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def cer(reference: str, hypothesis: str) -> float:
    """Character error rate: edits needed to turn the hypothesis into the reference, per reference character."""
    ref, hyp = _chars(reference), _chars(hypothesis)
    return edit_distance(ref, hyp) / max(1, len(ref))


def page_text(page: PageResult) -> str:
    """The recognised body text of a page (no tables, headers or footers), in reading order."""
    return "\n".join(b.text for b in page.blocks if b.type not in ("table", "header", "footer", "figure"))


def table_cell_accuracy(expected: list[list[str]], page: PageResult) -> float:
    """Share of expected cells whose text was recovered exactly in the right row and column."""
    tables = [b.table for b in page.blocks if b.table is not None]
    if not expected:
        return 1.0
    if not tables:
        return 0.0
    grid = tables[0].grid()
    hits = 0
    for r, row in enumerate(expected):
        for c, cell in enumerate(row):
            if r < len(grid) and c < len(grid[r]) and _chars(grid[r][c]) == _chars(cell):
                hits += 1
    return hits / sum(len(row) for row in expected)


# --- Real pages (bench/accuracy.py): order-sensitive CER on whitespace-normalised text, and word bags.

_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
# Scripts written without spaces between words (Han, kana, Thai, Lao, Tibetan, Khmer, Myanmar):
# no space next to them counts, and their bag of words is a bag of characters (a letter with its marks).
_NO_SPACE = f"{_CJK}\u3040-\u30ff\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff"
_SPACE_BY_CJK = re.compile(rf"\s+(?=[{_NO_SPACE}])|(?<=[{_NO_SPACE}])\s+")
_NO_SPACE_CHAR = re.compile(rf"[{_NO_SPACE}]")
# A hyphen at a line end between letters, the next line starting with a letter: joined when that
# letter is lower case in any script (Cyrillic and Greek words break so as Latin ones do).
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u00ad\u2010\x02]\s*\n\s*(?=([^\W\d_]))")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
# Separators nobody sees: Khmer, Thai and Myanmar translators put a zero-width space between words,
# which no reading of the page can give back. The zero-width non-joiner (Persian) is kept: it
# changes how the letters join.
_INVISIBLE = re.compile("[\u200b\u2060\ufeff]")


def normalise(text: str) -> str:
    """NFKC; a word hyphenated across a line end joined again (both sides, so neither is punished
    for where the other broke lines); control characters dropped; whitespace runs as one space,
    none next to a character of a script written without spaces (engines and typesetters differ
    in where they put those); zero-width spaces dropped."""
    text = _LINE_END_HYPHEN.sub(_joined, text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _INVISIBLE.sub("", _CONTROL.sub("", unicodedata.normalize("NFKC", text)))
    return _SPACE_BY_CJK.sub("", re.sub(r"\s+", " ", text)).strip()


def _joined(match: re.Match[str]) -> str:
    return "" if match.group(1).islower() else match.group(0)


def text_cer(reference: str, hypothesis: str) -> float:
    """Order-sensitive character error rate on normalised text (edits per reference character)."""
    from rapidfuzz.distance import Levenshtein

    ref, hyp = normalise(reference), normalise(hypothesis)
    return Levenshtein.distance(ref, hyp) / max(1, len(ref))


def text_cer_nearest(references: Sequence[str], hypothesis: str) -> float:
    """CER against the nearest of several references that differ only in order (the same text layer
    as two independent readers order it): a reading is not punished for choosing a reading order
    that one of them also chose."""
    return min(text_cer(reference, hypothesis) for reference in references)


def tokens(text: str) -> list[str]:
    """Words of letters, digits and the marks on them (a Thai vowel, a Devanagari matra, an Arabic
    haraka belong to their word); in scripts written without spaces, each character with its marks."""
    out: list[str] = []
    word = ""
    for ch in text:
        if unicodedata.category(ch)[0] == "M" and (word or out):
            if word:
                word += ch
            elif _NO_SPACE_CHAR.match(out[-1][0]):
                out[-1] += ch
        elif _NO_SPACE_CHAR.match(ch) and (ch.isalnum() or unicodedata.category(ch) == "Lo"):
            if word:
                out.append(word)
            word = ""
            out.append(ch)
        elif ch.isalnum():
            word += ch
        elif word:
            out.append(word)
            word = ""
    if word:
        out.append(word)
    return out


def bag_of_words_f1(reference: str, hypothesis: str) -> float:
    """F1 of the two multisets of ``tokens``: words, and characters of scripts without spaces."""
    ref = Counter(tokens(normalise(reference)))
    hyp = Counter(tokens(normalise(hypothesis)))
    if not ref and not hyp:
        return 1.0
    common = sum((ref & hyp).values())
    if not common:
        return 0.0
    precision, recall = common / sum(hyp.values()), common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


# Words that stand for shapes drawn on the page: a list's bullet, a check box.
_DRAWN_ROLES = ("bullet", "checkbox")


def _line_text(line: Line) -> str:
    """A line's text without the shapes the page draws (a word with the role "bullet" or
    "checkbox"): they are no characters of the text layer the truth is, and the reading adds them."""
    if not any(w.role in _DRAWN_ROLES for w in line.words):
        return line.text
    return line_text([w for w in line.words if w.role not in _DRAWN_ROLES])


def full_text(page: PageResult) -> str:
    """Everything a page result says, in its reading order: every block's lines (headers, footers,
    captions, figure labels included; drawn bullets and check boxes left out), a table's cells row by row."""
    parts: list[str] = []
    for block in page.blocks:
        if block.table is not None:
            parts.extend(" ".join(row) for row in block.table.grid())
        elif block.lines:
            parts.extend(_line_text(line) for line in block.lines)
        elif block.text:
            parts.append(block.text)
    return "\n".join(parts)


# Blocks of a page's flow, whose boundaries are scored against the tagged structure: a running head
# or footer is a block of its own, as the truth's /P is where the tags give one (and a boundary at a
# word the tags leave out is not judged).
TEXT_BLOCKS = ("title", "text", "list", "caption", "code", "header", "footer")


def paragraph_flow(blocks: Sequence[Block]) -> list[str]:
    """The paragraphs a reader sees, in order: a paragraph's parts in two columns joined as the
    writers join them (``joined_paragraphs``); a list block's items one each (the truth has one
    per /LI)."""
    return [
        part
        for block in joined_paragraphs(blocks)
        if block.type in TEXT_BLOCKS
        for part in (block.text.split("\n") if block.type == "list" else [block.text])
    ]
