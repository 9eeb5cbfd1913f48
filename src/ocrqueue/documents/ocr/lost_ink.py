"""Ink beside the lines the engine read that no word of theirs covers, read again.

Tesseract's page layout analysis (PSM 3) leaves out pieces of a page whose other lines it reads:
a LibreOffice table of numbered rows (tabula-multicolumn p. 1, dev) came back without its row
numbers 9 to 24, the rest of each row read; each number read alone comes back at 0.96-0.97.
The lost-line pass (whole_page._lost_lines) cannot see them: it looks for bands of a region that
no line covers, and wants three letters.

Here the ink of the text regions (and of tables found without rules) that no read word touches
is cut into runs, pieces of ink on one row close enough to be one word or a few; runs of a
line's height are read in one request, stacked one above another on white paper (as
table_cells.py reads a ruled table's cells), and each run's words are kept where the engine is
sure of them (``KEEP_CONFIDENCE``). They come back as lines of their own at their place on the
page, and join their row there (layout/rows.merge_rows). Rules, dot leaders, check boxes,
bullets, figures and formulas are left out before; specks, and runs too thin or too tall for a
line, are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.geometry import BBox, PixelBox, union
from ocrqueue.documents.layout.blocks import reading_sort
from ocrqueue.documents.layout.raster import RasterLayout
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.ocr.assemble import OcrPage
from ocrqueue.documents.text import join_words

SPECK_IN = 0.01  # ink smaller than this across, both ways, is scanner noise
FRINGE_IN = 0.01  # how far a scanned rule's grey fringe reaches beyond its mask
COVER_IN = 0.01  # a piece this close above or below a read word's box is that word's, and ...
WORD_REACH = 0.5  # ... this close (in line heights) before or after it, a word gap: Tesseract's
# box for "Under" on a dev sheet (made-spreadsheet-calc-1, clean) ended 0.13 line short of its "r",
# and "(P" of a scanned form's "(PIN)" stood 0.39 from the garbled words read over it; the words
# read again on dev stood 0.86 lines (a form's lettered items) to 15 from the nearest on their row
RUN_MIN = 0.5  # a run's height, in line heights: lower is punctuation, a rule's end or a speck
RUN_MAX = 1.6  # ... higher is a figure's part, a drawn sign, or a lost band (whole_page._lost_lines)
MIN_WIDE = 0.15  # a run's width, in line heights: narrower is a bar (a form's, an answer box's side)
JOIN_X = 0.6  # pieces on one row this close (in line heights) are one run: a word gap, not a column
JOIN_Y = 0.25  # ... and rows of one run this close: an i's dot, an accent
MIN_INK = 0.03  # a run holds at least this much ink (as a square's side, in line heights squared)
KEEP_CONFIDENCE = 0.9  # a word read from a run is kept this sure or surer
MARK_READINGS = frozenset("oO0xXvVlI")  # one character of these alone is a drawn mark's reading
GAP = 0.5  # white paper between two runs in the strip, and around it, in line heights


def read_lost_ink(page: OcrPage, lines: Sequence[Line], layout: RasterLayout, blank: Sequence[PixelBox]) -> list[Line]:
    """Lines (page pixels) read from the ink no word of ``lines`` (pixels) covers in the text
    regions and the tables without rules, leaving out the areas in ``blank`` (leaders, check
    boxes, bullets: pixels)."""
    heights = sorted(ln.bbox.height for ln in lines if ln.text.strip())
    if not heights:
        return []
    height = heights[len(heights) // 2]
    lost = _lost_ink(page, lines, layout, blank, height)
    runs = _runs(lost, height)
    if not runs:
        return []
    found: list[Line] = []
    for words in _read_strip(page, lost, runs, height):
        kept = [w for w in words if _sure(w)]
        if kept:
            text = join_words([w.text for w in kept])
            found.append(Line(text, union(w.bbox for w in kept), _mean(kept), tuple(kept)))
    return found


def _lost_ink(
    page: OcrPage, lines: Sequence[Line], layout: RasterLayout, blank: Sequence[PixelBox], height: float
) -> Mask:
    """The ink of the text regions and of the tables without rules, less rules, ``blank`` and
    every connected piece of it that reaches into a read word's box. Only the ink outside the
    words' boxes is labelled, and a piece of it that touches a box's edge is part of a word's: on a
    dev newspaper page labelling the whole ink took 0.28 s (under load), this 0.01 s."""
    free = np.zeros_like(page.ink)
    areas = [*layout.regions, *(i.box for i in layout.islands if i.kind == "table" and i.grid is None)]
    for x0, y0, x1, y1 in areas:
        free[y0:y1, x0:x1] = page.ink[y0:y1, x0:x1]
    if page.rules is not None and page.rules.mask.any():
        fringe = max(1, round(FRINGE_IN * page.dpi))
        rules = np.ascontiguousarray(page.rules.mask).view(np.uint8)
        free[cv2.dilate(rules, np.ones((2 * fringe + 1, 2 * fringe + 1), np.uint8)).view(bool)] = False
    for x0, y0, x1, y1 in blank:
        free[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
    pad, reach = max(1, round(COVER_IN * page.dpi)), max(1, round(WORD_REACH * height))
    boxes = [
        (max(0, int(b.x0) - reach), max(0, int(b.y0) - pad), int(b.x1) + 1 + reach, int(b.y1) + 1 + pad)
        for line in lines
        for b in (w.bbox for w in line.words or (Word(line.text, line.bbox, line.confidence),))
    ]
    for x0, y0, x1, y1 in boxes:
        free[y0:y1, x0:x1] = False
    if not free.any():
        return free
    count, labels, stats = _pieces(free)
    # A piece touching a box's edge (the pixels just round it) runs into the box: a word's.
    covered = np.zeros(count, bool)
    for x0, y0, x1, y1 in boxes:
        top, left = max(0, y0 - 1), max(0, x0 - 1)
        covered[labels[top, left : x1 + 1]] = True
        covered[labels[y1 : y1 + 1, left : x1 + 1]] = True
        covered[labels[top : y1 + 1, left]] = True
        covered[labels[top : y1 + 1, x1 : x1 + 1]] = True
    speck = max(1, round(SPECK_IN * page.dpi))
    wide, tall = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    # Specks, and pieces taller than any run (a bracket, a figure's line) left out before runs are cut.
    covered |= ((wide < speck) & (tall < speck)) | (tall > RUN_MAX * height)
    covered[0] = True
    if covered.all():  # nothing to read again: the labels need not be looked up
        return np.zeros_like(free)
    lost: Mask = np.logical_not(covered)[labels]
    return lost


def _pieces(mask: Mask) -> tuple[int, npt.NDArray[np.integer], npt.NDArray[np.int32]]:
    """The connected pieces of ``mask``: their number, labels and stats, the labels two bytes a
    pixel where they fit (a poster's page, 25 x 50 in, peaked 613 MB with four, 600 the bound)."""
    image = mask.view(np.uint8)
    try:
        count, labels, stats, _ = cv2.connectedComponentsWithStats(image, connectivity=8, ltype=cv2.CV_16U)
    except cv2.error:  # more than 65,534 pieces
        count, labels, stats, _ = cv2.connectedComponentsWithStats(image, connectivity=8)
    return int(count), cast(npt.NDArray[np.integer], labels), np.asarray(stats, dtype=np.int32)


def _runs(lost: Mask, height: float) -> list[PixelBox]:
    """Boxes of the runs of ``lost`` ink (pieces on one row, a word gap apart at most) of a
    line's height."""
    if not lost.any():
        return []
    gx, gy = max(1, round(JOIN_X * height / 2)), max(1, round(JOIN_Y * height / 2))
    joined = cv2.dilate(lost.view(np.uint8), np.ones((2 * gy + 1, 2 * gx + 1), np.uint8)).view(bool)
    count, labels, stats = _pieces(joined)
    runs: list[PixelBox] = []
    for i in range(1, count):
        x, y, w, h = (int(v) for v in stats[i, :4])
        part = lost[y : y + h, x : x + w] & (labels[y : y + h, x : x + w] == i)
        rows, cols = np.flatnonzero(part.any(axis=1)), np.flatnonzero(part.any(axis=0))
        tall, wide = rows[-1] + 1 - rows[0], cols[-1] + 1 - cols[0]
        if (
            RUN_MIN * height <= tall <= RUN_MAX * height
            and wide >= MIN_WIDE * height
            and np.count_nonzero(part) >= (MIN_INK * height) ** 2
        ):
            runs.append((x + int(cols[0]), y + int(rows[0]), x + int(cols[-1]) + 1, y + int(rows[-1]) + 1))
    return runs


def _read_strip(page: OcrPage, lost: Mask, runs: Sequence[PixelBox], height: float) -> list[list[Word]]:
    """Each run's words (page pixels), read in one request as a strip of the runs one above another
    on white paper: the page's grey of the ``lost`` ink and a pixel round it, the rest white. Drawn
    as the ink mask alone (black on white), a scanned "21" read 0.83, the same in grey 0.97."""
    gap = max(4, round(GAP * height))
    width = max(x1 - x0 for x0, _, x1, _ in runs) + 2 * (gap + 1)
    total = sum(y1 - y0 + 2 for _, y0, _, y1 in runs) + gap * (len(runs) + 1)
    strip = np.full((total, width), 255, np.uint8)
    page_h, page_w = lost.shape
    slots: list[tuple[float, float, int, int]] = []  # strip rows of each slot, and its shift to the page
    y = gap
    for run in runs:
        x0, y0 = max(0, run[0] - 1), max(0, run[1] - 1)
        x1, y1 = min(page_w, run[2] + 1), min(page_h, run[3] + 1)
        near = cv2.dilate(lost[y0:y1, x0:x1].view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)
        strip[y : y + y1 - y0, gap : gap + x1 - x0][near] = page.straight.gray[y0:y1, x0:x1][near]
        slots.append((y - gap / 2, y + y1 - y0 + gap / 2, x0 - gap, y0 - y))
        y += y1 - y0 + gap
    out = page.engine.recognize(Image.fromarray(strip), RecognitionRequest(page.languages, "cell", page.dpi))
    found: list[list[Word]] = [[] for _ in runs]
    for line in reading_sort(list(out.lines)):
        for word in line.words or (Word(line.text, line.bbox, line.confidence),):
            k = next((k for k, (lo, hi, _, _) in enumerate(slots) if lo <= word.bbox.cy < hi), None)
            if k is not None and word.text.strip():
                _, _, dx, dy = slots[k]
                b = word.bbox
                found[k].append(Word(word.text, BBox(b.x0 + dx, b.y0 + dy, b.x1 + dx, b.y1 + dy), word.confidence))
    return found


def _sure(word: Word) -> bool:
    """A word the engine is sure of, holding a letter or a digit (a dash, a stroke or a dot read
    from a drawn mark is not text worth bringing back), and not one character a drawn mark reads
    as: a ring as "O" or "0", a cross as "x", a tick as "v", a bar as "l" or "I" (on a drawn test
    page a cross read "x" at 0.87 and a ring "O" at 0.88, beside lost row numbers and a form's
    lettered lines at 0.90-0.97)."""
    text = word.text.strip()
    return (
        (word.confidence or 0.0) >= KEEP_CONFIDENCE
        and any(c.isalnum() for c in text)
        and not (len(text) == 1 and text in MARK_READINGS)
    )


def _mean(words: Sequence[Word]) -> float:
    return sum(w.confidence or 0.0 for w in words) / len(words)
