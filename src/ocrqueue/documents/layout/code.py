"""Monospaced code: which OCR lines are set in a fixed-pitch font, and a code block's text with its
line breaks and indentation rebuilt from where its words stand on the character grid.

The text layer names its fonts (textlayer.py); an OCR engine gives only word boxes. In a
fixed-pitch font every character, the space included, takes the same advance: a word's width grows
by one pitch per character and the next word starts a whole number of pitches after it; in a
proportional font "ill" is a third as wide as "mom" and words start anywhere.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import mostly_wide

MIN_WORDS = 3  # fewer words say too little about the pitch; such lines are matched to a neighbour's
MIN_CHARS = 12
NEIGHBOUR_LINES = 4.0  # how far (in line heights) a short line looks for a monospaced neighbour
OWN_BEARINGS = (-0.2, 1.0)  # pitches a word's ink is narrower than its characters' advances
NEIGHBOUR_BEARINGS = (-0.15, 0.65)  # stricter for a short line judged by a neighbour's pitch
MAX_WIDTH_ERROR = 0.35  # in pitches: a word's width against pitch x characters (less bearings)
MAX_GRID_ERROR = 0.45  # in pitches: the distance between two words' starts against whole characters
LISTING_MONOSPACE_SHARE = 0.8  # lines in a fixed-pitch font that make a group of lines a listing
# Lines set this many times larger than the body text are headings, never monospace unless they
# read as code: a newspaper's headline of a few words fits a pitch by chance, and its lines that
# did were set apart from those that did not, one headline read as two (made newspaper, dev).
LARGE_TYPE = 1.3
JUSTIFIED_MAX_LINES = 3  # monospace lines at most, in a run taken for justified prose
JUSTIFIED_SLACK = 0.3  # line heights by which justified lines' edges may differ


def char_pitch(lines: Sequence[Sequence[Word]]) -> float:
    """The advance of one character: the median, over neighbouring words on a line, of the distance
    between their starts over the first word's characters plus one space; the mean width per
    character when no line has two words."""
    steps = [
        (b.bbox.x0 - a.bbox.x0) / (len(a.text) + 1)
        for words in lines
        for a, b in itertools.pairwise(words)
        if b.bbox.x0 > a.bbox.x0
    ]
    if steps:
        return float(np.median(steps))
    chars = sum(len(w.text) for words in lines for w in words)
    return sum(w.bbox.width for words in lines for w in words) / max(1, chars)


def _fits_pitch(words: Sequence[Word], pitch: float, bearing_range: tuple[float, float]) -> bool:
    """Every word as wide as its characters at ``pitch`` less a bearing in ``bearing_range``
    (pitches; about the same for every word), and each next word a whole number of characters
    (at least one space) further on."""
    lengths = np.array([len(w.text) for w in words], dtype=float)
    bearings = (pitch * lengths - np.array([w.bbox.width for w in words])) / pitch
    low, high = bearing_range
    if np.ptp(bearings) > 2 * MAX_WIDTH_ERROR or not low <= float(np.median(bearings)) <= high:
        return False
    steps = np.diff([w.bbox.x0 for w in words]) / pitch - lengths[:-1]
    return bool(np.all(steps >= 1 - MAX_GRID_ERROR) and np.all(np.abs(steps - np.round(steps)) <= MAX_GRID_ERROR))


def _verdict(words: Sequence[Word]) -> bool | None:
    """Whether a line's own words show a fixed pitch; None when it has too few to tell (with two
    words the pitch is found from the pair itself, so any pair would fit). Chinese prose keeps a
    regular pitch too: a line that is mostly CJK is never code."""
    if mostly_wide("".join(w.text for w in words)):
        return False
    if len(words) < MIN_WORDS or sum(len(w.text) for w in words) < MIN_CHARS:
        return None
    pitch = char_pitch([words])
    return pitch > 0 and _fits_pitch(words, pitch, OWN_BEARINGS)


def mark_monospace(lines: Sequence[Line], body: float = 0.0) -> list[Line]:
    """OCR lines (in reading order) with ``monospace`` set where their words keep a regular
    pitch. A line too short to tell on its own (a lone ``make``, ``./configure --prefix=/usr``) is
    monospace when it fits the pitch of the nearest such line within a few line heights. With the
    page's ``body`` size, lines in type ``LARGE_TYPE`` times larger are not, unless they read as code."""
    rows = [[w for w in line.words if w.text] for line in lines]
    verdicts = [_verdict(words) for words in rows]
    fixed = [(line, char_pitch([words])) for line, words, v in zip(lines, rows, verdicts, strict=True) if v]
    out = []
    for line, words, verdict in zip(lines, rows, verdicts, strict=True):
        if verdict is None and fixed and words:  # None: not mostly CJK (_verdict)
            near, pitch = min(fixed, key=lambda f: _distance(line, f[0]))
            close = _distance(line, near) <= NEIGHBOUR_LINES * near.bbox.height
            verdict = close and _fits_pitch(words, pitch, NEIGHBOUR_BEARINGS)
        large = body > 0 and (line.font_size or line.bbox.height) >= LARGE_TYPE * body
        verdict = verdict and not (large and not reads_as_code([_without_asides(line)]))
        out.append(replace(line, monospace=bool(verdict)))
    out = [
        replace(line, monospace=False) if 0 < i < len(out) - 1 and _lone_pitch(out[i - 1], line, out[i + 1]) else line
        for i, line in enumerate(out)
    ]
    return _justified_prose(out)


# A parenthesised aside after a space, "(optional)", "(6 points)": prose's, not a call's "f(x)".
ASIDE = re.compile(r"(?<=\s)\([^()]*\)")


def _without_asides(line: Line) -> Line:
    """``line`` with its parenthesised asides taken out of its text: a heading in large type that
    keeps a regular pitch by chance ("Part B (optional)" in DejaVu Sans Bold) was a code block for
    its brackets alone, which ``CODE_MARK`` counts."""
    return replace(line, text=ASIDE.sub("", line.text))


def _justified_prose(lines: list[Line]) -> list[Line]:
    """``lines`` with each short run of monospace lines set flush with the prose round it made
    prose again (``_justified_run``)."""
    out = list(lines)
    i = 0
    while i < len(out):
        if not out[i].monospace:
            i += 1
            continue
        j = i
        while j < len(out) and out[j].monospace:
            j += 1
        before = out[i - 1] if i > 0 else None
        after = out[j] if j < len(out) else None
        if _justified_run(out[i:j], before, after):
            out[i:j] = [replace(line, monospace=False) for line in out[i:j]]
        i = j
    return out


def _justified_run(run: Sequence[Line], before: Line | None, after: Line | None) -> bool:
    """Whether a run of up to ``JUSTIFIED_MAX_LINES`` monospace lines is justified prose: its lines
    start where the prose lines next to it do and end where the wider of them ends (the last may
    end short, a paragraph's last line; one at least is flush). The short lines of a newspaper's
    justified column fit a fixed pitch by chance two or three at a time ("software and other
    kinds" over "of works. For example, if"), and the paragraph was split where they started and
    stopped, "executable work) run the" made code for its bracket. Code is ragged on the right; a
    line of code flush with the prose on both sides is rare."""
    if not run or len(run) > JUSTIFIED_MAX_LINES:
        return False
    near = [n for n in (before, after) if n is not None and _next_to(n, run)]
    if not near:
        return False
    slack = JUSTIFIED_SLACK * float(np.median([ln.bbox.height for ln in run]))
    left, right = near[0].bbox.x0, max(n.bbox.x1 for n in near)
    flush = [abs(ln.bbox.x1 - right) <= slack for ln in run]
    return (
        all(abs(ln.bbox.x0 - left) <= slack for ln in [*run, *near])
        and all(flush[:-1])
        and run[-1].bbox.x1 <= right + slack
        and any(flush)
    )


def _next_to(line: Line, run: Sequence[Line]) -> bool:
    """Whether a line stands right above or below a run of lines, within a line's height."""
    return min(_distance(line, run[0]), _distance(line, run[-1])) <= max(ln.bbox.height for ln in run)


def _lone_pitch(before: Line, line: Line, after: Line) -> bool:
    """Whether a line taken for monospace between two that are not is prose all the same: a
    justified line of three or four words fits a pitch by chance ("included in an aggregate,"), and
    the paragraph of a newspaper's column was split around each such line. One with a mark of code
    (``reads_as_code``: "./configure --prefix=/usr") stays code."""
    return line.monospace and not before.monospace and not after.monospace and not reads_as_code([line])


def _distance(a: Line, b: Line) -> float:
    return max(a.bbox.y0 - b.bbox.y1, b.bbox.y0 - a.bbox.y1, 0.0)


def is_listing(lines: Sequence[Line]) -> bool:
    """Whether lines are mostly set in a fixed-pitch font: a code listing (line numbers and all),
    not a table or a chart, whatever is drawn round or behind them."""
    return bool(lines) and sum(ln.monospace for ln in lines) >= LISTING_MONOSPACE_SHARE * len(lines)


# What program text, shell commands and markup have and prose hardly does: brackets, operators,
# a statement's semicolon, an option ("-f", "--prefix"), a path, a call, a line ending in ":" or "{".
CODE_MARK = re.compile(r"[{}()\[\];=<>#$\\|_*&%^~`@]|(?:^|\s)--?\w|\w/\w|^\.?/|::|->|[:{]$")
CODE_MARK_SHARE = 0.25  # lines with such a mark that make monospaced lines code
INDENT_MIN_PITCHES = 2  # deeper than this under a block's left edge, a line is indented
INDENT_MIN_LINES = 2


def reads_as_code(lines: Sequence[Line]) -> bool:
    """Whether monospaced lines are code, not prose typed on a typewriter: a quarter of them with
    marks of code (``CODE_MARK``), or several lines indented under others (a body of a loop). A
    fixed-pitch font alone is no sign: a typewritten letter was fenced as code, and the short
    justified lines of a newspaper's column keep as regular a pitch as code does."""
    texts = [ln.text.strip() for ln in lines if ln.text.strip()]
    if not texts:
        return False
    if sum(bool(CODE_MARK.search(t)) for t in texts) >= CODE_MARK_SHARE * len(texts):
        return True
    words = [w for ln in lines for w in ln.words if w.text]
    if len(lines) <= INDENT_MIN_LINES or not words:
        return False
    pitch = char_pitch([[w for w in ln.words if w.text] for ln in lines])
    left = min(ln.bbox.x0 for ln in lines)
    indented = sum(ln.bbox.x0 - left >= INDENT_MIN_PITCHES * pitch for ln in lines[1:])
    return pitch > 0 and indented >= INDENT_MIN_LINES


def code_text(lines: Sequence[Line]) -> str:
    """The block's lines, one per line, each word at its column on the character grid, so
    indentation and aligned comments survive."""
    rows = [sorted((w for w in ln.words if w.text), key=lambda w: w.bbox.x0) for ln in lines]
    words = [w for row in rows for w in row]
    if not words:
        return "\n".join(ln.text for ln in lines)
    pitch = char_pitch(rows)
    left = min(w.bbox.x0 for w in words)
    out = []
    for row in rows:
        text = ""
        for word in row:
            column = round((word.bbox.x0 - left) / pitch) if pitch > 0 else len(text)
            text += " " * max(1 if text else 0, column - len(text)) + word.text
        out.append(text)
    return "\n".join(out)


# Markup in a line of source: a TeX control word or the characters that TeX, HTML and program code
# use for syntax and prose hardly does.
SOURCE_MARK = re.compile(r"\\[A-Za-z]+|[{}$^_&%<>\\]")
SOURCE_SHARE = 0.6  # lines with markup that make the first column source
OUTPUT_MAX_SHARE = 0.2  # lines with markup allowed in the columns beside it
SOURCE_ONLY_SHARE = 0.25  # rows with nothing beside the source: its lines and the output's do not pair up


def is_source_beside_output(rows: Sequence[tuple[str, str]]) -> bool:
    """Whether the rows of a table without rules, each as (its first column, the rest), are source
    set beside what it produces (a LaTeX manual's example and its typeset result): the first column
    mostly markup, the rest hardly any, and a quarter of the rows or more with nothing beside the
    source. Read as a table, such rows interleave two texts line by line (latex-notes-zh p. 34
    clean: CER 0.15). A table of commands and what they do pairs every command with its row."""
    source = [left for left, _ in rows if left]
    output = [right for _, right in rows if right]
    if not source or not output:
        return False
    marked = sum(bool(SOURCE_MARK.search(t)) for t in source)
    marked_output = sum(bool(SOURCE_MARK.search(t)) for t in output)
    source_only = sum(bool(left) and not right for left, right in rows)
    return (
        marked >= SOURCE_SHARE * len(source)
        and marked_output <= OUTPUT_MAX_SHARE * len(output)
        and source_only >= SOURCE_ONLY_SHARE * len(rows)
    )
