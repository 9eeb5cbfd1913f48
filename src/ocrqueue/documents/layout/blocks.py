"""Turn lines (already in reading order within a region) into typed blocks.

The rules are deliberately simple and geometric so both the text-layer and the OCR path use them:
a paragraph ends at a gap taller than a line or where the text size jumps; size relative to the
page's body text makes titles; position in the top or bottom margin band makes headers and footers;
a leading bullet or number makes list items; lines set in a fixed-pitch font that read as code
(layout/code.py ``reads_as_code``) make code; "Figure 2" / "Table 1" / "图 1" make captions; a
short line set apart and centred in its column that holds a relation (=, <, ≤ …) and little prose
is a display formula (classic OCR engines give no LaTeX, and the layout model takes one-line
formulas for titles or plain text).
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable, Sequence

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.code import code_text, reads_as_code
from ocrqueue.documents.model import Block, BlockType, Line, Word
from ocrqueue.documents.text import join_lines, mostly_wide

LIST_MARKER = re.compile(
    r"^\s*(?:[-\u2022*\u00b7\u25aa\u25e6\u2023\u2013\u2610\u2612]|\(?\d{1,3}[.)]|\(?[a-z][.)]|[一二三四五六七八九十]+、)\s+"
)
# A check box (layout/checkboxes.py) starts an item and stays in its text: it says the item's state.
CHECKBOX_ITEM = re.compile(r"^\s*[\u2610\u2612]\s+")
CAPTION = re.compile(r"^\s*(?:fig(?:ure)?\.?|table|tab\.|图|表)\s*\d+", re.IGNORECASE)
MARGIN_BAND = 0.07
RELATION = re.compile(r"[=<>\u2248\u2260\u2264\u2265\u2261\u221d]")  # = < > ≈ ≠ ≤ ≥ ≡ ∝
PROSE_WORD = re.compile(r"[^\W\d_]{4,}")  # a run of four or more letters
FORMULA_MAX_PROSE_WORDS = 2
FORMULA_MIN_INDENT = 0.1  # share of the column's width left free on the left
FORMULA_MAX_WIDTH = 0.7  # share of the column's width
# Distance of the formula's centre from the column's, as a share of the column's width: loose,
# because the column's extent is that of its lines, whose right ends are ragged.
FORMULA_MAX_OFF_CENTRE = 0.15
PROSE_MIN_WORDS = 8
# Large type in more lines than this is a title only when it is not prose: a headline wraps to
# four lines in a newspaper's narrow column, a slide's points in large type are sentences.
TITLE_MAX_LINES = 3
PROSE_END = re.compile(r"(?:[.!?,;:]|[^\W\d_A-Z\u00c0-\u00de])[\"'\u201d\u2019)]*$")
TITLE_RATIO = 1.3
H1_RATIO = 1.8
# One or two lines in a bold face, no smaller than the body text and no sentence, over prose in a
# regular face (``bold_heads``), are headings of the third level: word processors' and InDesign's
# lower headings are the body's size in bold ("Surgical Complications" over its paragraph in the
# NCCN guidelines), and were read into the paragraph under them.
# The sizes PDFium gives such a heading's bold face run under the body's regular one (9.96 against
# 11.04 pt there); smaller bold type than this is a table's head or a caption's label. A heading
# says no sentence: it ends in no punctuation (a bold "Bill to:" or "Warning: do not." is none).
BOLD_TITLE_MAX_LINES = 2
BOLD_TITLE_MIN_SIZE = 0.85
BOLD_TITLE_MAX_WORDS = 12
BOLD_TITLE_END = re.compile(r"[.!?,;:]\W*$")
BOLD_LEVEL = 3
# A bold heading standing apart (``stands_as_bold_heading``) heads text of the body's size: the
# paragraph under it is set this share of the body's size or larger (its row heights on a render).
HEADED_TEXT_MIN_SIZE = 0.9
# A bold heading this much larger than the body stands apart however it is spaced: word
# processors' second and third levels are 12-14 pt bold over 11 pt text, under ``TITLE_RATIO``.
BOLD_TITLE_LARGER = 1.1
# A pitch this share of the text size wider than the region's usual one sets paragraphs apart.
PARAGRAPH_SPACE = 0.4
MIN_PITCHES = 3
RUNNING_LINE_MIN_WIDTH = 4.0  # in text sizes


def line_size(line: Line) -> float:
    return line.font_size if line.font_size else line.bbox.height


def body_size(lines: Iterable[Line]) -> float:
    """The text size most characters on the page are set in (0 when there is no text)."""
    weighted: list[float] = []
    for line in lines:
        weighted.extend([line_size(line)] * max(1, len(line.text) // 8))
    return statistics.median(weighted) if weighted else 0.0


def reading_sort(lines: Sequence[Line]) -> list[Line]:
    """Top to bottom, left to right for lines sharing a row (within one column region)."""
    if not lines:
        return []
    tol = max(2.0, statistics.median(line.bbox.height for line in lines) * 0.5)
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: ln.bbox.cy):
        # Measured from the row's first line, so a slope of lines cannot chain into one row; a grid
        # of fixed bands would split a row whose centres straddle a band's edge (CJK and Latin words).
        if rows and line.bbox.cy - rows[-1][0].bbox.cy <= tol:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda ln: ln.bbox.x0)]


def _pitch(prev: Line, line: Line) -> float:
    """Distance from one line to the next, the lesser of their tops' and bottoms' distances: a line
    without capitals or ascenders has a lower top, one without descenders a higher bottom, and the
    lesser of the two is the baseline distance far more often than either alone."""
    return min(line.bbox.y0 - prev.bbox.y0, line.bbox.y1 - prev.bbox.y1)


def _leading(lines: Sequence[Line]) -> float | None:
    """The region's usual line pitch as a share of the text size (so footnotes and body text share
    it): the median over successive lines of running text (of one size, at least
    ``RUNNING_LINE_MIN_WIDTH`` sizes wide, closer than a line's height: the lines a paragraph is
    made of); None with fewer than ``MIN_PITCHES`` of them. Fragments of a few characters (labels,
    the pieces of vertical text read across) say nothing of a paragraph's leading."""
    pitches = []
    for prev, line in itertools.pairwise(lines):
        size, prev_size = line_size(line), line_size(prev)
        gap = line.bbox.y0 - prev.bbox.y1
        if (
            line.font_size
            and prev.font_size
            and abs(size - prev_size) <= 0.05 * max(size, prev_size)
            and -0.5 * line.bbox.height < gap <= size
            and min(line.bbox.width, prev.bbox.width) >= RUNNING_LINE_MIN_WIDTH * size
        ):
            pitches.append(_pitch(prev, line) / max(size, 1e-6))
    return statistics.median(pitches) if len(pitches) >= MIN_PITCHES else None


def paragraphs(lines: Sequence[Line]) -> list[list[Line]]:
    """Lines grouped into paragraphs. Besides a gap taller than a line, a pitch wider than the
    region's usual one by ``PARAGRAPH_SPACE`` of the text size ends a paragraph: word processors
    and browsers set paragraphs apart by a space after them (LibreOffice's 0.25 cm, CSS margins)
    smaller than a line, which the gap rule alone reads as one paragraph of the whole page. Only
    between lines whose size the text layer gives: an OCR line's box, its only size, varies with its
    ascenders and descenders by more than such a space."""
    groups: list[list[Line]] = []
    leading = _leading(lines)
    for line in lines:
        if groups:
            prev = groups[-1][-1]
            size, prev_size = line_size(line), line_size(prev)
            gap = line.bbox.y0 - prev.bbox.y1
            same_size = max(size, prev_size) <= TITLE_RATIO * 0.95 * min(size, prev_size)
            spaced = (
                leading is not None
                and bool(line.font_size and prev.font_size)
                and _pitch(prev, line) > (leading + PARAGRAPH_SPACE) * max(size, prev_size)
            )
            if (
                gap <= max(size, prev_size)
                and not spaced
                and gap > -0.5 * line.bbox.height
                and same_size
                and line.monospace == prev.monospace
                and not (LIST_MARKER.match(line.text) and not LIST_MARKER.match(groups[-1][0].text))
            ):
                groups[-1].append(line)
                continue
        groups.append([line])
    return groups


def _starts_as_heading(text: str) -> bool:
    first = text.lstrip()[:1]
    return first.isdigit() or first.isupper()


def _join_lines(lines: Sequence[Line]) -> str:
    return join_lines([ln.text for ln in lines])


def text_confidence(lines: Sequence[Line]) -> float | None:
    """The lines' confidence, weighted by their length."""
    known = [(ln.confidence, len(ln.text)) for ln in lines if ln.confidence is not None]
    total = sum(n for _, n in known)
    if not known or total == 0:
        return None
    return sum(c * n for c, n in known) / total


def is_display_formula(lines: Sequence[Line], column: BBox | None) -> bool:
    """One or two lines, centred in ``column`` (the extent of the text around them), holding a
    relation and at most a couple of words of prose."""
    if column is None or len(lines) > 2 or column.width <= 0:
        return False
    text = " ".join(ln.text for ln in lines)
    if not RELATION.search(text) or len(PROSE_WORD.findall(text)) > FORMULA_MAX_PROSE_WORDS:
        return False
    box = union(ln.bbox for ln in lines)
    return (
        box.x0 - column.x0 >= FORMULA_MIN_INDENT * column.width
        and box.width <= FORMULA_MAX_WIDTH * column.width
        and abs(box.cx - column.cx) <= FORMULA_MAX_OFF_CENTRE * column.width
    )


def is_prose(lines: Sequence[Line]) -> bool:
    """A sentence or more of running text: at least ``PROSE_MIN_WORDS`` words ending as a sentence
    does, or running on (a comma, a letter that is not a capital). Running heads are short titles, names and
    numbers; the first line of a page's text must never be dropped as one."""
    text = _join_lines(lines).rstrip()
    return len(text.split()) >= PROSE_MIN_WORDS and bool(PROSE_END.search(text))


def classify(
    lines: Sequence[Line], page_height: float, body: float, column: BBox | None
) -> tuple[BlockType, int | None]:
    box = union(ln.bbox for ln in lines)
    size = statistics.median(line_size(ln) for ln in lines)
    # Running heads are set no larger than body text; detector boxes (RapidOCR) pad small text, hence 1.4.
    small = body <= 0 or size <= body * 1.4
    running = small and len(lines) <= 2 and not is_prose(lines)
    if running and box.y1 <= page_height * MARGIN_BAND:
        return "header", None
    if running and box.y0 >= page_height * (1 - MARGIN_BAND):
        return "footer", None
    if all(ln.monospace for ln in lines) and reads_as_code(lines):
        return "code", None
    if CAPTION.match(lines[0].text) and len(lines) <= 3:
        return "caption", None
    if LIST_MARKER.match(lines[0].text):
        return "list", None
    if is_display_formula(lines, column):
        return "formula", None
    if body > 0 and size >= body * TITLE_RATIO and (len(lines) <= TITLE_MAX_LINES or not is_prose(lines)):
        return "title", 1 if size >= body * H1_RATIO else 2
    return "text", None


def bold_heads(lines: Sequence[Line], body: float) -> tuple[list[Line], list[Line]]:
    """The bold headings a paragraph starts with, one a line (two stacked: a section's and its
    subsection's), and the rest of it, when that rest is prose in a regular face: a heading with no
    more space under it than between its text's lines, read into it. Bold lines over anything else
    are a letter's sender, a form's labels, a flowchart's boxes (dev letters, DD 293 and the NCCN
    algorithms: no headings in their tags; standing apart from prose they were titles there: heading
    F1 down); a bold phrase inside a paragraph is the paragraph's."""
    count = 0
    while count < min(BOLD_TITLE_MAX_LINES, len(lines)) and _bold_heading_line(lines[count], body):
        count += 1
    rest = list(lines[count:])
    if count and rest and _regular_prose(rest):
        return list(lines[:count]), list(lines[count:])
    return [], list(lines)


def _regular_prose(lines: Sequence[Line]) -> bool:
    """Prose in a regular face: no bold line, and a sentence or more (``is_prose``) or lines that
    run on: at least half the lines before the last hold ``RUNNING_LINE_MIN_WORDS`` words and end
    as prose does. The last line of a paragraph may end otherwise: in a reference number after
    the full stop ("... subsequent 131I.241", read from a render "1°"],241"), "(0.8%)", a web
    address."""
    if any(ln.bold for ln in lines):
        return False
    if is_prose(lines):
        return True
    head = lines[:-1]
    running = sum(len(ln.text.split()) >= RUNNING_LINE_MIN_WORDS and bool(PROSE_END.search(ln.text)) for ln in head)
    words = sum(len(ln.text.split()) for ln in lines)
    return bool(head) and words >= PROSE_MIN_WORDS and 2 * running >= len(head)


def stands_as_bold_heading(
    paragraph: Sequence[Line], before: Line | None, after: Sequence[Line] | None, body: float
) -> bool:
    """Whether ``paragraph`` is a bold heading set apart from its paragraph by a space: one or two
    bold lines such as ``bold_heads`` takes (the body's size or more, no sentence), over regular
    prose (``after``, the next paragraph of the region), standing no farther from it than from the
    line ``before`` it (a heading belongs to what it heads), which ends the text before it in a
    regular face (a flowchart's bold boxes stack over one another). InDesign and word processors put a
    little space between a heading and its text ("Hürthle Cell Carcinoma" in the dev NCCN
    guidelines: 10 pt over its paragraph, 16 pt under the one before), enough for ``paragraphs``
    to set it apart. A bold name over an address, a form's label over a box's few words, bold
    boxes of a flowchart stand over no prose, or over footnotes in smaller type (the NCCN
    algorithms' last boxes over their notes, 8 and 10 pt against the body's 11). One set
    ``BOLD_TITLE_LARGER`` times the body's size or more needs no such space: word processors set
    their lower levels so, and Chromium's print of one stood 20 pt over its text, 19 under the
    paragraph before."""
    if not after or not paragraph or len(paragraph) > BOLD_TITLE_MAX_LINES:
        return False
    if not all(_bold_heading_line(ln, body) for ln in paragraph) or not _regular_prose(after):
        return False
    if statistics.median(line_size(ln) for ln in after) < HEADED_TEXT_MIN_SIZE * body:
        return False
    if before is None:
        return True
    if before.bold:
        return False
    if statistics.median(line_size(ln) for ln in paragraph) >= BOLD_TITLE_LARGER * body:
        return True
    below = after[0].bbox.y0 - paragraph[-1].bbox.y1
    return paragraph[0].bbox.y0 - before.bbox.y1 >= below


def _bold_heading_line(line: Line, body: float) -> bool:
    return (
        line.bold
        and body > 0
        and line_size(line) >= BOLD_TITLE_MIN_SIZE * body
        and len(line.text.split()) <= BOLD_TITLE_MAX_WORDS
        and _starts_as_heading(line.text)
        and not BOLD_TITLE_END.search(line.text)
    )


def list_items(lines: Sequence[Line]) -> list[str]:
    """Item texts of a list block: a line with a marker starts an item, others continue it."""
    items: list[list[Line]] = []
    for line in lines:
        if LIST_MARKER.match(line.text) or not items:
            items.append([line])
        else:
            items[-1].append(line)
    texts = [_join_lines(item) for item in items]
    return [text if CHECKBOX_ITEM.match(text) else LIST_MARKER.sub("", text, count=1) for text in texts]


# What OCR engines make of a round bullet: a lone mark like these before a capital, a digit or a
# letter of a script without case (Tesseract's Latin script model reads "●" as "è"; its Hangul
# model reads "•" as the jamo "ㆍ", arae-a: install-ko p. 30, dev, seven items each a word "ㆍ").
BULLET_MISREADS = frozenset(
    {"¢", "e", "è", "é", "©", "«", "»", "°", "®", "o", "*", "+", "·", "•", "●", "■", "□", "❖", "➢", "\u318d", "\u119e"}
)
MIN_LIST_RUN = 2


def restore_bullets(lines: Sequence[Line]) -> list[Line]:
    """Lines whose first word is a bullet misread ("¢", "e", "©" for "•") start with "•" again,
    when at least MIN_LIST_RUN lines of the region begin so before a capital, a digit or a letter
    of a script without case (Korean, Chinese, Arabic: a list, not a word that happens to open a
    line)."""

    def marked(line: Line) -> bool:
        words = line.text.split(" ", 2)
        if len(words) < 2 or words[0] not in BULLET_MISREADS:
            return False
        first = words[1][:1]
        return first.isupper() or first.isdigit() or (first.isalpha() and first.lower() == first.upper())

    flags = [marked(line) for line in lines]
    if sum(flags) < MIN_LIST_RUN:
        return list(lines)
    out = []
    for line, flag in zip(lines, flags, strict=True):
        if flag and line.text[0] != "•":
            words = (Word("•", line.words[0].bbox, line.words[0].confidence), *line.words[1:]) if line.words else ()
            line = Line(
                "•" + line.text[len(line.text.split(" ", 1)[0]) :],
                line.bbox,
                line.confidence,
                words,
                line.font_size,
                line.monospace,
            )
        out.append(line)
    return out


def build_blocks(lines: Sequence[Line], page_height: float, body: float) -> list[Block]:
    """Blocks of one column region; its lines' extent is the column a formula is centred in."""
    lines = restore_bullets(lines)
    blocks: list[Block] = []
    column = union(ln.bbox for ln in lines) if lines else None
    found = paragraphs(lines)
    for at, paragraph in enumerate(found):
        heads, group = bold_heads(paragraph, body)
        blocks.extend(
            Block("title", head.bbox, head.text, head.confidence, (head,), level=BOLD_LEVEL) for head in heads
        )
        kind, level = classify(group, page_height, body, column)
        before = found[at - 1][-1] if at else None
        after = found[at + 1] if at + 1 < len(found) else None
        if kind == "text" and stands_as_bold_heading(group, before, after, body):
            kind, level = "title", BOLD_LEVEL
        if kind == "list":
            text = "\n".join(list_items(group))
        elif kind == "code":
            text = code_text(group)
        else:
            text = _join_lines(group)
        blocks.append(
            Block(kind, union(ln.bbox for ln in group), text, text_confidence(group), tuple(group), level=level)
        )
    return blocks


FIGURE_TEXT_MAX_LINES = 3  # lines of running text of body size that make a "figure" text
RUNNING_LINE_MIN_WORDS = 5
RUNNING_LINE_MIN_WIDE_CHARS = 10  # a line of Chinese or Japanese has no spaces between words
BODY_SIZE_RANGE = (0.7, 1.4)  # sizes against the page's body text that count as body text


def holds_running_text(lines: Sequence[Line], body: float) -> bool:
    """Whether lines found inside a figure are running text of body size: at least
    ``FIGURE_TEXT_MAX_LINES`` long lines set about as large as the page's body text (``body``;
    the lines' own when 0). A chart's labels and a diagram's words are short; a page of prose over
    a background picture, or one the layout model calls a figure, was swallowed as a figure and
    its text lost from the Markdown."""
    size = body or body_size(lines)
    low, high = BODY_SIZE_RANGE

    def running(line: Line) -> bool:
        long = len(line.text.split()) >= RUNNING_LINE_MIN_WORDS or (
            mostly_wide(line.text) and len(line.text) >= RUNNING_LINE_MIN_WIDE_CHARS
        )
        return long and low * size <= line_size(line) <= high * size

    return size > 0 and sum(running(ln) for ln in lines) >= FIGURE_TEXT_MAX_LINES


def figure_block(box: BBox, lines: Sequence[Line], image: str | None) -> Block:
    """A figure with the text found inside it (axis labels, words of a diagram) as its lines, so
    search finds them, in reading order; they stay out of the page's prose."""
    ordered = reading_sort(lines)
    text = "\n".join(ln.text for ln in ordered)
    return Block("figure", box, text, text_confidence(ordered), tuple(ordered), image=image)
