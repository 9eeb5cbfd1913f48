# ruff: noqa: RUF002 (the letters of other scripts are the point)
"""Lines in another script than their page's, each read again with its own script's model.

A page is read with one set of models (``Greek+Latin``, ``chi_sim+eng``), chosen for the scripts
most of it is in; the page-wide second looks (script_recheck.py, unseen_scripts.py) change that set
for the whole page. A letter greeting the world in six scripts (pypdf's multilang.pdf, a dev page
of the documents corpus) or an English page quoting a line of Russian, Arabic and Korean each gets
its few foreign lines back as confident garbage in the page's scripts: read with ``Greek+Latin``,
"Привет, мир" came back as "ΠρνΒετ, mnp" (0.76), Thai as Greek letters (0.09), Arabic and Hebrew as
Latin ones (0.48); RapidOCR read the Russian line as "," at 0.98 and left the Arabic one out.

Here a line is looked at on its own when its words of letters were read unsurely
(``_unsure_below``), when its text would fill only a little of its inked width (``too_short``), when
most of its letters are of a script the page's models do not read (``_foreign_letters``), or when it
is a row of ink outside every block (``missing_lines``). OSD is shown the line repeated until its
crop holds about as many ink pieces as OSD wants to tell a script (``OSD_PIECES``); a script with a
model that the page was not read for is read on that line alone (with Latin beside it, for its
labels), and the reading replaces the line's when it holds that script, is sure (``KEPT``) and is
surer than the line was (``_kept``). OSD on one line is often wrong ("Arabic:" was Cyrillic to it);
the reading decides, so a wrong name costs one short reading and changes nothing. OSD does not tell
Hangul, kana or Han from one line; a line read poorly that it names nothing for is read with those
models (``OSD_WEAK``). At most ``PROBE_LINES`` lines a page are looked at, the least sure first.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from PIL import Image

from ocrqueue.documents.engines import OrientationDetector, RecognitionRequest
from ocrqueue.documents.geometry import BBox, PixelBox, union
from ocrqueue.documents.layout.xycut import Mask, joined_runs
from ocrqueue.documents.model import Block, Line
from ocrqueue.documents.ocr.address_lines import reads_as_address
from ocrqueue.documents.ocr.assemble import to_points
from ocrqueue.documents.ocr.crops import padded_crop
from ocrqueue.documents.ocr.detect import osd_script
from ocrqueue.documents.ocr.engine_choice import languages_to_ask
from ocrqueue.documents.ocr.script_recheck import SAME_READING
from ocrqueue.documents.scripts import SCRIPT_MODELS, script_counts, scripts_of_languages

# A line whose words of letters were read with a mean confidence under this is asked about. Lines
# read in their own script on the dev scans: 0.85-0.97; foreign lines read with the page's models
# on the drawn test page: 0.09-0.76.
LINE_SURE = 0.85
# ... or this far under the page's median line, when that is lower (``_unsure_below``).
BELOW_PAGE = 0.15
# A line whose text holds fewer characters than this share of what its box would hold (a
# character about half as wide as the line is high) lost most of its text: RapidOCR read a line of
# Russian as "," in a box for ten characters.
TOO_SHORT = 0.3
CHAR_WIDTH = 0.5
LONG_LINE = 2.5
PROBE_LINES = 8
# OSD tells a script from about 50 characters; a line is repeated in its crop until it holds this
# many ink pieces (``MAX_REPEATS`` at most).
OSD_PIECES = 120
MAX_REPEATS = 12
# A line OSD tells no script for whose words of letters were read this poorly is read with the
# models of the scripts OSD tells badly from one line: a line of Korean was Greek turned by 180
# degrees to it, however repeated. Not a line found by its ink alone (lines of table rules and junk
# cost 2-5 s so on dev pages, for nothing), nor on a Korean page: its own poor lines are nothing to
# OSD either, and would each be read twice more.
POOR = 0.6
OSD_WEAK = ("Hangul", "Japanese", "Han")
# A line's new reading is kept at or over this mean word confidence, when surer than the old one by
# ``MARGIN``: the Korean line read with Hangul's model came back right at 0.73 (Latin garbage 0.52),
# the Arabic one at 0.80, Thai 0.93, Hebrew 0.89.
KEPT = 0.7
MARGIN = 0.1
MIN_LETTERS = 3
# A row of ink outside every block is looked at when it is this many of the page's line heights
# high, holds this many ink pieces (not a rule, a speck, a dot), and is cut where its ink leaves a
# gap of this many line heights (another column's line).
MISSING_HEIGHT = (0.5, 2.0)
MISSING_PIECES = 3
MISSING_GAP = 3.0
# ... and is this many line heights wide or more (the shortest line of the Arabic greeting, two
# words, is 3.1), most of its pieces this share of a line high or more (letters, not dots).
MISSING_WIDTH = 2.0
LETTER_HEIGHT = 0.3
# A block whose lines lie this much inside lines read again was part of them.
WITHIN = 0.5
# Block kinds whose lines are read again; formulas, tables and figures are left as read. Code is
# among them: the Russian line read as "ΠρνΒετ, mnp! Kak gena" was taken for code, and a block read
# again so is prose (``with_lines_read_again``).
ASKED = frozenset({"text", "title", "list", "caption", "header", "footer", "code"})


@dataclass(frozen=True)
class LineRead:
    """What one line's own look found: the new line (page points) and the models that read it."""

    line: Line
    languages: tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    """A line to look at: one of the reading's (``line``), or a row of ink no block holds (None);
    its box in the page's pixels, how surely it was read (0 when not at all), and whether that is
    the confidence of its own words of letters (``lettered``)."""

    line: Line | None
    box: PixelBox
    before: float
    lettered: bool = False


def reread_foreign_lines(
    image: Image.Image,
    ink: Mask,
    scale: float,
    blocks: Sequence[Block],
    languages: tuple[str, ...],
    detector: OrientationDetector,
) -> tuple[tuple[Block, ...], tuple[str, ...]]:
    """``blocks`` with each line in another script than ``languages`` read (see the module's
    docstring) replaced by its own reading, each row of ink left out of them and found in such a
    script added as a block of its own, and the languages those readings added."""
    page_scripts = {_read_as(s) for s in scripts_of_languages(languages)}
    candidates = _candidates(blocks, ink, scale, page_scripts) + missing_lines(ink, blocks, scale)
    found: dict[Candidate, LineRead] = {}
    for candidate in sorted(candidates, key=lambda c: c.before)[:PROBE_LINES]:
        own = _own_reading(image, scale, candidate, page_scripts, detector)
        if own is not None:
            found[candidate] = own
    if not found:
        return tuple(blocks), ()
    added = tuple(dict.fromkeys(lang for r in found.values() for lang in r.languages if lang not in languages))
    replaced = {c.line: r.line for c, r in found.items() if c.line is not None}
    new = [_block(r.line) for c, r in found.items() if c.line is None]
    boxes = [r.line.bbox for r in found.values()]
    kept = [with_lines_read_again(b, replaced) for b in blocks if not _within(b, boxes, replaced)]
    return in_place(kept, new), added


def _block(line: Line) -> Block:
    return Block("text", line.bbox, line.text, line.confidence, (line,))


def _within(block: Block, read: list[BBox], replaced: dict[Line, Line]) -> bool:
    """Whether each of ``block``'s lines, none of them read again, lies mostly inside a line read
    again: the first reading made a line of its own of a Thai line's vowel marks ("e")."""
    if not block.lines or any(ln in replaced for ln in block.lines):
        return False
    return all(any(ln.bbox.intersection(box) >= WITHIN * ln.bbox.area for box in read) for ln in block.lines)


def _own_reading(
    image: Image.Image, scale: float, candidate: Candidate, page_scripts: set[str], detector: OrientationDetector
) -> LineRead | None:
    """The candidate read with the model of the script OSD names for it (or, when it names none
    and the candidate was read poorly, of each script of ``OSD_WEAK``), when that script is not
    the page's and the reading is kept (``_kept``); None otherwise."""
    offered, dpi = detector.capabilities.languages, round(scale * 72)
    crop, x0, y0 = padded_crop(image, candidate.box)
    named = _line_script(crop.convert("L"), detector, dpi)
    weak = candidate.lettered and candidate.before < POOR and "Hangul" not in page_scripts
    tried = [named] if named is not None else list(OSD_WEAK) if weak else []
    best: LineRead | None = None
    for script in tried:
        if _read_as(script) in page_scripts or SCRIPT_MODELS[script].model not in offered:
            continue
        asked = languages_to_ask((script, "Latin"), offered)
        out = detector.recognize(crop, RecognitionRequest(asked, "line", dpi)).lines
        read = _read_line([to_points(ln, x0, y0, scale) for ln in out if ln.text.strip()], asked)
        bar = max(candidate.before, (best.line.confidence or 0.0) if best else 0.0)
        if read is not None and _kept(read.line, script, bar):
            best = read
    return best


def _read_line(read: list[Line], languages: tuple[str, ...]) -> LineRead | None:
    """One line of ``read`` (a line's crop read alone may come back as more pieces), None if empty."""
    words = tuple(w for ln in read for w in ln.words)
    if not words:
        return None
    text = " ".join(ln.text for ln in read)
    return LineRead(Line(text, union(w.bbox for w in words), _mean([w.confidence for w in words]), words), languages)


def _candidates(blocks: Sequence[Block], ink: Mask, scale: float, page_scripts: set[str]) -> list[Candidate]:
    """The lines of ``ASKED`` blocks whose words of letters were read unsurely (``_unsure_below``),
    or that lost most of their text (``too_short``) or are in letters of a script the page was not
    read for; those two count as not read at all (RapidOCR's Chinese model read a line of Greek
    as "εια συ κσε" at 0.86: it knows some Greek letters, not the script). Not lines of web
    addresses (address_lines.py): Latin, read unsurely for their symbols."""
    lines = [ln for b in blocks if b.type in ASKED for ln in b.lines if ln.words]
    bar = _unsure_below(lines)
    found = []
    for line in lines:
        lettered = _lettered_confidence(line)
        if too_short(line, ink, scale) or _foreign_letters(line.text, page_scripts):
            candidate = Candidate(line, _pixels(line.bbox, scale), 0.0)
        elif lettered is not None and lettered < bar and _mostly_unsure(line):
            candidate = Candidate(line, _pixels(line.bbox, scale), lettered, lettered=True)
        else:
            continue
        if not reads_as_address(line.text):
            found.append(candidate)
    return found


def _mostly_unsure(line: Line) -> bool:
    """Whether more than half of ``line``'s words of letters were read under ``LINE_SURE``: a line
    in another script is read unsurely in most of its words, a line of code with one word misread
    ("pdflatex -interaction=nonstopmode = попѕќїортоае" on a Russian page) in one."""
    confidences = [w.confidence or 0.0 for w in line.words if _is_word_of_letters(w.text)]
    return 2 * sum(c < LINE_SURE for c in confidences) > len(confidences)


def _unsure_below(lines: Sequence[Line]) -> float:
    """The confidence under which a line's words of letters were read unsurely: ``LINE_SURE``, or
    ``BELOW_PAGE`` under the page's median line when that is lower. RapidOCR reads the kana of a
    dev Japanese page at 0.5-0.8 a line, and each such line cost a look (0.2-0.4 s)."""
    known = sorted(c for c in map(_lettered_confidence, lines) if c is not None)
    if not known:
        return LINE_SURE
    return min(LINE_SURE, known[len(known) // 2] - BELOW_PAGE)


def _foreign_letters(text: str, page_scripts: set[str]) -> bool:
    """Whether most of ``text``'s letters are of a script none of ``page_scripts`` (the page's
    models) reads."""
    counts = script_counts(text)
    if not counts:
        return False
    first = counts.most_common(1)[0][0]
    return _read_as(first) not in page_scripts and first != "Vietnamese"


def missing_lines(ink: Mask, blocks: Sequence[Block], scale: float) -> list[Candidate]:
    """Rows of ink outside every block, as high as the page's lines (``MISSING_HEIGHT``) and of
    ``MISSING_PIECES`` ink pieces or more, cut where they leave a gap of ``MISSING_GAP`` line
    heights: RapidOCR left a line of Arabic out of its reading of a Chinese-and-English page."""
    heights = sorted(ln.bbox.height * scale for b in blocks for ln in b.lines)
    if not heights:
        return []
    height = heights[len(heights) // 2]
    left = ink.copy()
    for b in blocks:
        x0, y0, x1, y1 = _pixels(b.bbox, scale)
        left[max(0, y0 - 2) : y1 + 2, max(0, x0 - 2) : x1 + 2] = False
    found = []
    for top, bottom in joined_runs(left.sum(axis=1) >= 1, round(height / 4)):
        if not MISSING_HEIGHT[0] * height <= bottom - top <= MISSING_HEIGHT[1] * height:
            continue
        for start, end in joined_runs(left[top:bottom].sum(axis=0) > 0, round(MISSING_GAP * height)):
            if end - start >= MISSING_WIDTH * height and _letters_like(left[top:bottom, start:end], height):
                found.append(Candidate(None, (start, top, end, bottom), 0.0))
    return found


def _letters_like(band: Mask, height: float) -> bool:
    """Whether ``band`` holds ``MISSING_PIECES`` ink pieces or more, most of them at least
    ``LETTER_HEIGHT`` of a line high (letters, not a dotted rule or a scan's specks)."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(band.astype(np.uint8), connectivity=8)
    tall = int((stats[1:, cv2.CC_STAT_HEIGHT] >= LETTER_HEIGHT * height).sum())
    return count - 1 >= MISSING_PIECES and 2 * tall >= count - 1


def _pixels(box: BBox, scale: float) -> PixelBox:
    scaled = box.scaled(scale)
    return int(scaled.x0), int(scaled.y0), int(scaled.x1) + 1, int(scaled.y1) + 1


def in_place(blocks: list[Block], new: list[Block]) -> tuple[Block, ...]:
    """``blocks`` with each of ``new`` after the block that ends nearest above it, one across from
    it first (a column's), else first: the Arabic line RapidOCR left out is right-aligned under
    its label."""
    out = list(blocks)
    for block in sorted(new, key=lambda b: b.bbox.y0):
        limit = block.bbox.y0 + block.bbox.height / 2
        above = [i for i, b in enumerate(out) if b.bbox.y1 <= limit]
        across = [i for i in above if out[i].bbox.x0 < block.bbox.x1 and out[i].bbox.x1 > block.bbox.x0]
        chosen = across or above
        at = max(chosen, key=lambda i: out[i].bbox.y1) + 1 if chosen else 0
        out.insert(at, block)
    return tuple(out)


def too_short(line: Line, ink: Mask, scale: float) -> bool:
    """Whether ``line``'s text would fill under ``TOO_SHORT`` of the inked width of its box (the
    columns of its box that hold ink), that width being ``LONG_LINE`` line heights or more: a
    running head read as words spread wide is whole, a line of Russian read as ", !  ?" is not,
    and a line of a few characters beside a rule is no line that lost its text."""
    x0, y0, x1, y1 = _pixels(line.bbox, scale)
    inked = int(ink[y0:y1, x0:x1].any(axis=0).sum())
    chars = len(line.text.replace(" ", ""))
    height = y1 - y0
    return inked >= LONG_LINE * height and chars * CHAR_WIDTH * height < TOO_SHORT * inked


def _lettered_confidence(line: Line) -> float | None:
    """The mean confidence of ``line``'s words of letters (with their punctuation around them; not
    code such as "--file=ARCHIVE", read unsurely for its symbols); None without such words."""
    lettered = [w.confidence for w in line.words if _is_word_of_letters(w.text)]
    return _mean(lettered)


def _is_word_of_letters(text: str) -> bool:
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(text[end - 1]).startswith("P"):
        end -= 1
    return text[start:end].isalpha()


def _line_script(crop: Image.Image, detector: OrientationDetector, dpi: int) -> str | None:
    """The script OSD names for a line's crop repeated until it holds ``OSD_PIECES`` ink pieces,
    upright; None when it tells none."""
    ink = (np.asarray(crop) < 128).astype(np.uint8)
    pieces = cv2.connectedComponents(ink, connectivity=8)[0] - 1
    if pieces <= 0:
        return None
    repeats = min(MAX_REPEATS, math.ceil(OSD_PIECES / pieces))
    stacked = Image.new("L", (crop.width, crop.height * repeats), 255)
    for i in range(repeats):
        stacked.paste(crop, (0, i * crop.height))
    found = detector.orientation(stacked, dpi)
    if found is None or found.rotation != 0:
        return None
    script = osd_script(found.script)
    return script if script in SCRIPT_MODELS else None


def _kept(line: Line, script: str, before: float) -> bool:
    """Whether a line's new reading holds mostly ``script``'s letters (kana or kanji for Japanese),
    ``MIN_LETTERS`` of them or more ("S" read as "늬" by the Hangul model is no line of Korean), and
    was read at ``KEPT`` or more and surer than ``before``."""
    counts = script_counts(line.text)
    if not counts:
        return False
    first, letters = counts.most_common(1)[0]
    if letters < MIN_LETTERS:
        return False
    if _read_as(first) != _read_as(script):
        return False
    confidence = line.confidence or 0.0
    return confidence >= KEPT and confidence >= before + MARGIN


def with_lines_read_again(block: Block, found: dict[Line, Line]) -> Block:
    """``block`` with its lines in ``found`` replaced, in its lines and where each stands in its
    text (found after the lines before it; a line whose text is not there as read, such as one
    joined to the next at a hyphen, is left as it was); code read so is prose (a line in another
    script than its page's was code only as read with the wrong model)."""
    text, at, lines = block.text, 0, []
    for ln in block.lines:
        start = text.find(ln.text, at)
        if ln in found and start >= 0:
            new = found[ln]
            text = text[:start] + new.text + text[start + len(ln.text) :]
            lines.append(new)
            at = start + len(new.text)
        else:
            lines.append(ln)
            at = start + len(ln.text) if start >= 0 else at
    if lines == list(block.lines):
        return block
    kind = "text" if block.type == "code" else block.type
    bbox = union([block.bbox, *(ln.bbox for ln in lines)])
    return replace(block, type=kind, text=text, lines=tuple(lines), bbox=bbox)


def _read_as(script: str) -> str:
    """The script whose reading covers ``script``'s (Japanese's is Han's: ``SAME_READING``)."""
    return SAME_READING.get(script, script)


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None
