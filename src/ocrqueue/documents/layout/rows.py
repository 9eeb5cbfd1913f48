"""Merge line pieces that sit on the same row into one line, words in the row's reading order.

Detectors (RapidOCR) return text pieces, and a page engine's lines are cut where they cross
layout regions or where the engine saw a column that is not there; both are put back together
row by row before paragraphs are built.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from ocrqueue.documents.geometry import union
from ocrqueue.documents.layout.vertical import is_column
from ocrqueue.documents.logical_line import in_logical_order
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import join_words

ROW_OVERLAP = 0.5  # share of the smaller height two pieces must share to be on one row


def merge_rows(pieces: Iterable[Line]) -> list[Line]:
    """Rows top to bottom; a piece joins the row above when they share most of their height. A
    vertical column (layout/vertical.py) is a line of its own: side by side, columns share
    their height but are not one row."""
    rows: list[list[Line]] = []
    pieces = list(pieces)
    columns = [p for p in pieces if is_column(p)]
    for piece in sorted((p for p in pieces if not is_column(p)), key=lambda p: p.bbox.cy):
        row = rows[-1] if rows else None
        if row is not None:
            top, bottom = max(p.bbox.y0 for p in row), min(p.bbox.y1 for p in row)
            overlap = min(bottom, piece.bbox.y1) - max(top, piece.bbox.y0)
            if overlap > ROW_OVERLAP * min(piece.bbox.height, bottom - top):
                row.append(piece)
                continue
        rows.append([piece])
    return [_line(row) for row in rows] + columns


def _line(row: list[Line]) -> Line:
    if len(row) == 1 and row[0].words:
        return row[0]
    row.sort(key=lambda p: p.bbox.x0)
    # Right to left in a right-to-left row: pieces of a Hebrew line put left to right read it
    # backwards, word by word (a dev page of gedit's Hebrew messages: a line cut in two by stray
    # marks came back as its words reversed).
    words = in_logical_order([w for p in row for w in (p.words or (Word(p.text, p.bbox, p.confidence),))])
    weights = [(w.confidence, len(w.text)) for w in words if w.confidence is not None]
    total = sum(n for _, n in weights)
    conf = sum(c * n for c, n in weights) / total if total else None
    sizes = [p.font_size for p in row if p.font_size]
    return Line(
        join_words([w.text for w in words]),
        union(w.bbox for w in words),
        conf,
        tuple(words),
        max(sizes) if sizes else None,
    )


def with_words(line: Line, words: Sequence[Word]) -> Line:
    """``line`` made of ``words`` (in order): its text, box and words from them, the rest kept."""
    return replace(
        line, text=join_words([w.text for w in words]), bbox=union(w.bbox for w in words), words=tuple(words)
    )


def split_line(line: Line, words: list[Word], join: Callable[[list[str]], str] = join_words) -> Line:
    """The part of ``line`` made of ``words`` (a subset of its words, in order). ``join`` makes its
    text: recognised words take no space between CJK characters (``join_words``); a PDF's text
    layer passes ``" ".join``, the way input/pdf_text.py joins the words of its lines."""
    if len(words) == len(line.words):
        return line
    weights = [(w.confidence, len(w.text)) for w in words if w.confidence is not None]
    total = sum(n for _, n in weights)
    conf = sum(c * n for c, n in weights) / total if total else line.confidence
    return Line(
        join([w.text for w in words]),
        union(w.bbox for w in words),
        conf,
        tuple(words),
        line.font_size,
        line.monospace,
    )


MIN_GUTTER_PT = 0.15 * 72  # the narrowest gap between two words that can be a gutter (as between a table's columns)


def across_gutters(line: Line, join: Callable[[list[str]], str] = join_words) -> list[Line]:
    """``line`` cut where two of its words stand a gutter apart (at least ``MIN_GUTTER_PT`` and
    the line's height: a word space, even a justified one, is narrower) or where the next word
    goes back to the left (a row of another column, a step lower or higher). A producer that
    writes a page a baseline at a time gives one line across a column of text and the table
    beside it; each piece is placed on its own (a table or a box takes the pieces whose centres
    it holds), while a word set a word space from a box drawn round its neighbour (an answer
    sheet's boxed "A") stays on its line."""
    gap = max(MIN_GUTTER_PT, line.bbox.height)
    words = line.words
    cuts = [
        i
        for i in range(1, len(words))
        if words[i].bbox.x0 - words[i - 1].bbox.x1 >= gap or words[i].bbox.x0 < words[i - 1].bbox.x0
    ]
    if not cuts:
        return [line]
    return [split_line(line, list(words[a:b]), join) for a, b in itertools.pairwise([0, *cuts, len(words)])]
