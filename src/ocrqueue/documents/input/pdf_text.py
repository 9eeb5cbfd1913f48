"""Read a PDF page's own text layer (characters with boxes) into lines and words.

Runs under the PDFium lock (the caller holds it). Character boxes come from PDFium in PDF space
(origin bottom-left); they are turned into top-left points here so both paths share one frame.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocrqueue.documents.bidi import has_rtl, is_rtl
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.indic_order import in_visual_order, logical_indices
from ocrqueue.documents.input.cut_words import before_pieces, rejoin_cut_words
from ocrqueue.documents.input.drawn_bullets import with_drawn_bullets
from ocrqueue.documents.input.glyph_spans import GlyphSpans, spans_closed
from ocrqueue.documents.input.letter_spacing import rejoin_letter_spaced
from ocrqueue.documents.input.pages import TextLayer
from ocrqueue.documents.input.pdfframe import PageFrame
from ocrqueue.documents.input.pdfgraphics import graphics
from ocrqueue.documents.input.superscripts import Superscripts, join_after_markers
from ocrqueue.documents.input.text_matrix import TextMatrices
from ocrqueue.documents.input.text_turn import text_turn
from ocrqueue.documents.logical_line import Glyph, ligatures_joined, logical_words, same_visual_line
from ocrqueue.documents.model import Line, Word, WordRole, line_text
from ocrqueue.documents.text import HYPHEN_MARKS, clean_text, composed, is_unwanted, is_wide, mostly_wide

_BREAKS = {"\n", "\r"}
_HYPHEN_BREAKS = {"\x02", "\ufffe"}
# A line ends at a line break, or after the mark PDFium puts where it removed a line break after
# a hyphen (U+FFFE in the page text, U+0002 per character): the word goes on on the next line.
_LINE = re.compile(r"[^\n\r\x02\ufffe]+[\x02\ufffe]?")
_WORD = re.compile(r"\S+")  # \S: what str.isspace() calls space, as in the per-character loop


def read_text_layer(page: pdfium.PdfPage, frame: PageFrame, char_boxes: bool = False) -> TextLayer:
    textpage = page.get_textpage()
    try:
        n = textpage.count_chars()
        text = _all_text(textpage, n)
        if text and not char_boxes:
            lines, chars, bad = _lines_by_word(textpage, frame, text)
        else:
            lines, chars, bad = _lines(textpage, frame, char_boxes, text or _per_char_text(textpage, n))
        turn = text_turn(textpage, n, frame.rotation)
    finally:
        textpage.close()
    # Text drawn outside the crop box is not on the page a reader sees (a page cut from a bigger one
    # by pdfcrop keeps the whole page's text): OCR never sees it, nor does the text layer.
    lines = [line for line in lines if frame.shown.contains_center_of(line.bbox)]
    if in_visual_order("".join(line.text for line in lines)):
        lines = [_in_logical_order(line) for line in lines]
    coverage, images, drawings, marks = _images(page, frame)
    lines = with_drawn_bullets(lines, marks)
    return TextLayer(tuple(lines), chars, bad, coverage, images, drawings, turn)


def _in_logical_order(line: Line) -> Line:
    """``line`` with its Indic pre-base vowel signs after their consonants (indic_order.py),
    character boxes moved with them."""
    words = []
    for word in line.words:
        order = logical_indices(word.text)
        text = "".join(word.text[i] for i in order)
        chars = tuple(word.chars[i] for i in order) if len(word.chars) == len(word.text) else word.chars
        words.append(replace(word, text=text, chars=chars))
    return replace(line, text=" ".join(w.text for w in words), words=tuple(words))


def _is_bad(ch: str) -> bool:
    """Characters that betray a broken font mapping rather than real text (not PDFium's marks of
    a hyphen at a line end)."""
    if ch in HYPHEN_MARKS:
        return False
    if ch < "\x7f":
        return ch < " " and ch != "\t"
    if ch == "\ufffd":
        return True
    cat = unicodedata.category(ch)
    return cat in ("Co", "Cn", "Cc")


# Fixed-pitch fonts by name (PDF writers often leave the FixedPitch flag off: TeX's CMTT10 has it
# off): Courier, *Mono*, Consolas, Inconsolata, typewriter faces and TeX's cmtt/lmtt/sftt ("tt" +
# design size).
_MONO_NAME = re.compile(
    r"mono|courier|consol|inconsolata|typewriter|menlo|monaco|sourcecode|(?:^|\+)[a-z]{0,3}tt\d", re.IGNORECASE
)
_FIXED_PITCH_FLAG = 1
# Bold faces by weight (PDFium's FPDFText_GetFontWeight: 400 regular, 700 bold) or, where the
# font gives none, by name ("Arial-BoldMT", "NimbusSans-Bold", "SourceSansPro-Semibold").
BOLD_WEIGHT = 600
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)


class _FontNames:
    """Whether the character at an index is set in a fixed-pitch font or a bold one, asked of
    PDFium once per line end (the first character of the line and of its last word), cached by
    font name."""

    def __init__(self, raw: pdfium_c.FPDF_TEXTPAGE) -> None:
        self.raw = raw
        self.buffer = ctypes.create_string_buffer(128)
        self.flags = ctypes.c_int()
        self.known: dict[tuple[bytes, int], bool] = {}
        self.bold_known: dict[bytes, bool] = {}

    def line_is_monospace(self, text: str | list[str], first: int, last: int, end: int) -> bool:
        """Whether the line ``text[first:end]`` is set in a fixed-pitch font, asked at its first
        character and its last word's; a line that is mostly CJK is prose (``mostly_wide``), and
        CJK characters at its ends do not count."""
        if mostly_wide("".join(text[max(first, 0) : end])):
            return False
        ends = [i for i in (first, last) if 0 <= i < len(text) and not (text[i] and is_wide(text[i][0]))]
        return bool(ends) and all(self.monospace(i) for i in ends)

    def line_is_bold(self, text: str | list[str], first: int, last: int) -> bool:
        """Whether the line starting at ``first`` is set in a bold face at its first character and
        at its last word's (a word in bold inside a line of regular text does not make it bold)."""
        ends = [i for i in (first, last) if 0 <= i < len(text)]
        return bool(ends) and all(self.bold(i) for i in ends)

    def bold(self, index: int) -> bool:
        if index < 0 or not pdfium_c.FPDFText_GetFontInfo(self.raw, index, self.buffer, 128, self.flags):
            return False
        name = self.buffer.value
        if name not in self.bold_known:
            weight = pdfium_c.FPDFText_GetFontWeight(self.raw, index)
            self.bold_known[name] = weight >= BOLD_WEIGHT or bool(_BOLD_NAME.search(name.decode("latin-1")))
        return self.bold_known[name]

    def monospace(self, index: int) -> bool:
        if index < 0 or not pdfium_c.FPDFText_GetFontInfo(self.raw, index, self.buffer, 128, self.flags):
            return False
        key = (self.buffer.value, self.flags.value)
        if key not in self.known:
            name = self.buffer.value.decode("latin-1")
            self.known[key] = bool(self.flags.value & _FIXED_PITCH_FLAG) or bool(_MONO_NAME.search(name))
        return self.known[key]


def _line(words: list[Word], font_size: float | None, monospace: bool = False, bold: bool = False) -> Line:
    words = rejoin_letter_spaced(words, font_size)
    box = BBox(
        min(w.bbox.x0 for w in words),
        min(w.bbox.y0 for w in words),
        max(w.bbox.x1 for w in words),
        max(w.bbox.y1 for w in words),
    )
    return Line(line_text(words), box, 1.0, tuple(words), font_size, monospace, bold)


def _lines_by_word(textpage: pdfium.PdfTextPage, frame: PageFrame, text: str) -> tuple[list[Line], int, int]:
    """Lines and words found in the page's text by regular expression, and each word's box asked
    of PDFium once (the rectangles of its character range: the union of its characters' boxes)
    instead of once per character. For ``text`` one to one with PDFium's character indices."""
    left, top, right, bottom = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    count_rects, get_rect = pdfium_c.FPDFText_CountRects, pdfium_c.FPDFText_GetRect
    raw, to_page = textpage.raw, frame.box
    fonts = _FontNames(raw)
    sizes = TextMatrices(raw)
    markers = Superscripts(raw, sizes)
    spans = GlyphSpans(textpage, len(text))
    lines: list[Line] = []
    rtl_before: Line | None = None  # the line before, when it was right-to-left
    before: tuple[int, list[tuple[Glyph, tuple[float, float]]]] = (-1, [])  # its first index, its glyphs
    for line in _LINE.finditer(text):
        rtl = has_rtl(line.group())
        if rtl or rtl_before is not None:
            first, last, glyphs = _rtl_glyphs(raw, to_page, text, line.start(), line.end(), spans)
            if rtl and rtl_before is not None and same_visual_line([g for g, _ in before[1]], [g for g, _ in glyphs]):
                lines.pop()  # PDFium cut one line in pieces (at a hamza above): read it whole
                first, glyphs = before[0], before[1] + glyphs
            words = logical_words(ligatures_joined(glyphs), rtl=None if rtl else True, size=sizes.size(first))
            if rtl or (words and rtl_before is not None and _ends_paragraph(words, rtl_before)):
                rtl_before = None
                if words:
                    monospace = fonts.line_is_monospace(text, first, last, line.end())
                    lines.append(_line(words, sizes.size(first), monospace, fonts.line_is_bold(text, first, last)))
                    rtl_before, before = lines[-1], (first, glyphs)
                continue
            rtl_before = None
        words = []
        ranges: list[tuple[int, int] | None] = []  # each word's characters, where it is one range
        first = last = -1
        for word in _WORD.finditer(text, line.start(), line.end()):
            start, end = word.span()
            first = start if first < 0 else first
            x0 = y0 = x1 = y1 = 0.0
            rects = count_rects(raw, start, end - start)
            for i in range(rects):  # more than one: a word on two lines, or of two text objects
                get_rect(raw, i, left, top, right, bottom)
                if i == 0:
                    x0, y0, x1, y1 = left.value, bottom.value, right.value, top.value
                else:
                    x0, y0 = min(x0, left.value), min(y0, bottom.value)
                    x1, y1 = max(x1, right.value), max(y1, top.value)
            if x1 <= x0 or y1 <= y0:
                # PDFium leaves characters of (almost) no size out of its rectangles: a word made
                # only of them (a lone zero-width space) gets none, or an empty one at the origin.
                x0, y0, x1, y1 = _union_of_chars(raw, start, end)
            marker = markers.marker_length(start, end) if rects > 1 else 0
            if marker:
                marked = _marked_word(raw, text, start, end, marker, to_page)
                words.extend(marked)
                ranges.extend([None] * len(marked))
                last = start
                continue
            text_of_word = clean_text(word.group())
            if text_of_word:  # not a word of invisible characters alone
                words.append(Word(text_of_word, to_page(x0, y0, x1, y1), 1.0))
                ranges.append((start, end))
                last = start
        if words:
            words = _cut_words_joined(raw, words, ranges, to_page)
            lines.append(
                _line(
                    words,
                    sizes.size(first),
                    fonts.line_is_monospace(text, first, last, line.end()),
                    fonts.line_is_bold(text, first, last),
                )
            )
    lines = join_after_markers(lines)
    counts = Counter(text)
    visible = sum(k for ch, k in counts.items() if not ch.isspace())
    bad = sum(k for ch, k in counts.items() if not ch.isspace() and _is_bad(ch))
    return lines, visible, bad


def _cut_words_joined(
    raw: pdfium_c.FPDF_TEXTPAGE,
    words: list[Word],
    spans: list[tuple[int, int] | None],
    to_page: Callable[[float, float, float, float], BBox],
) -> list[Word]:
    """The line's words with one-character pieces a space cut off the end of their word joined
    again (input/cut_words.py); characters' boxes are asked of PDFium only for such a piece and
    the word before it."""
    wanted = before_pieces(words)
    if not wanted:
        return words
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    boxes: list[list[BBox]] = []
    for i, span in enumerate(spans):
        found: list[BBox] = []
        if i in wanted and span is not None:
            for k in range(*span):
                if pdfium_c.FPDFText_GetCharBox(raw, k, left, right, bottom, top) and right.value > left.value:
                    found.append(to_page(left.value, bottom.value, right.value, top.value))
        boxes.append(found)
    return rejoin_cut_words(words, boxes)


def _ends_paragraph(words: list[Word], before: Line) -> bool:
    """Whether a line without right-to-left letters belongs to the right-to-left line above it:
    right below it and flush with its right edge (where that paragraph's lines end)."""
    box = union(w.bbox for w in words)
    size = before.bbox.height
    return 0 <= box.y0 - before.bbox.y0 <= 2.5 * size and abs(box.x1 - before.bbox.x1) <= size


def _rtl_glyphs(
    raw: pdfium_c.FPDF_TEXTPAGE,
    to_page: Callable[[float, float, float, float], BBox],
    text: str,
    start: int,
    end: int,
    spans: GlyphSpans,
) -> tuple[int, int, list[tuple[Glyph, tuple[float, float]]]]:
    """A line with right-to-left text: its visible characters with their boxes (page points),
    the word they are in (numbered by its first index) and their glyph's origin, with the indices
    of the line's first character and its last word's. A letter drawn with its marks as one span
    is boxed at the span's extent, and a space between two words that then touch is no space
    (``glyph_spans``)."""
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    glyphs: list[tuple[Glyph, tuple[float, float]]] = []
    indices: list[int] = []
    x, y = ctypes.c_double(), ctypes.c_double()
    first = last = -1
    for word in _WORD.finditer(text, start, end):
        first = word.start() if first < 0 else first
        last = word.start()
        for i in range(word.start(), word.end()):
            ch = text[i]
            if is_unwanted(ch) or ch in HYPHEN_MARKS:
                continue
            if pdfium_c.FPDFText_GetCharBox(raw, i, left, right, bottom, top):
                box = to_page(left.value, bottom.value, right.value, top.value)
                glyphs.append((Glyph(ch, box, word.start()), _origin(raw, i, x, y, to_page)))
                indices.append(i)
    return first, last, spans_closed(glyphs, indices, spans, to_page)


def _origin(
    raw: pdfium_c.FPDF_TEXTPAGE,
    index: int,
    x: ctypes.c_double,
    y: ctypes.c_double,
    to_page: Callable[[float, float, float, float], BBox],
) -> tuple[float, float]:
    """Where on the page (points) the glyph of character ``index`` is drawn from: the letters of
    one ligature share it."""
    if not pdfium_c.FPDFText_GetCharOrigin(raw, index, x, y):
        return (float("nan"), float(index))  # equal to no other character's
    at = to_page(x.value, y.value, x.value, y.value)
    return (at.x0, at.y0)


def _marked_word(
    raw: pdfium_c.FPDF_TEXTPAGE, text: str, start: int, end: int, marker: int, to_page: Callable[..., BBox]
) -> list[Word]:
    """A word and the marker at its end (its last ``marker`` characters) as two words."""
    cut = end - marker
    out = []
    for a, b in ((start, cut), (cut, end)):
        chars = clean_text(text[a:b])
        if chars:
            role: WordRole | None = "superscript" if a == cut else None
            out.append(Word(chars, to_page(*_union_of_chars(raw, a, b)), 1.0, role=role))
    return out


def _union_of_chars(raw: pdfium_c.FPDF_TEXTPAGE, start: int, end: int) -> tuple[float, float, float, float]:
    """The box (PDF space) around the boxes of characters ``start`` to ``end`` - 1."""
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    boxes = []
    for i in range(start, end):
        if pdfium_c.FPDFText_GetCharBox(raw, i, left, right, bottom, top):
            boxes.append((left.value, bottom.value, right.value, top.value))
    if not boxes:
        return 0.0, 0.0, 0.0, 0.0
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def _lines(
    textpage: pdfium.PdfTextPage, frame: PageFrame, char_boxes: bool, text: str | list[str]
) -> tuple[list[Line], int, int]:
    """One pass over the characters, with each character's box (for ``char_boxes``, or when the
    page's text does not line up with PDFium's character indices). This loop runs once per
    character, so the word being built lives in local floats (PDF space) and is turned into page
    points once per word."""
    n = len(text)
    c_left, c_right, c_bottom, c_top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    get_box = pdfium_c.FPDFText_GetCharBox
    to_page = frame.box
    lines: list[Line] = []
    words: list[Word] = []
    chars: list[str] = []
    boxes: list[BBox] = []
    fonts = _FontNames(textpage.raw)
    sizes = TextMatrices(textpage.raw)
    spans = GlyphSpans(textpage, textpage.count_chars())
    first = last = word_start = -1  # the line's first character, its last word's, this word's
    left = bottom = right = top = 0.0
    started = False  # a word's box has begun (it may hold only characters nobody sees)
    font_size: float | None = None
    visible = bad = 0
    glyphs: list[tuple[str, float, float, float, float, int, int]] = []  # the line's, for a right-to-left one
    rtl_before: Line | None = None  # the line before, when it was right-to-left
    for i in range(n + 1):
        ch = text[i] if i < n else "\n"
        if not ch:
            continue  # the second half of a surrogate pair, read with the first
        hyphen_break = ch in _HYPHEN_BREAKS
        if hyphen_break and chars:
            chars.append(ch)
            boxes.extend(boxes[-1:] if char_boxes else ())
        if ch.isspace() or hyphen_break:
            if chars:
                words.append(Word(clean_text("".join(chars)), to_page(left, bottom, right, top), 1.0, tuple(boxes)))
                last = word_start
                chars.clear()
                boxes.clear()
            started = False
            if ch in _BREAKS or hyphen_break:
                if words:
                    rtl = any(is_rtl(g[0]) for g in glyphs)
                    if rtl or rtl_before is not None:
                        at_x, at_y = ctypes.c_double(), ctypes.c_double()
                        placed = ligatures_joined(
                            spans_closed(
                                [
                                    (
                                        Glyph(g[0], to_page(*g[1:5]), g[5]),
                                        _origin(textpage.raw, g[6], at_x, at_y, to_page),
                                    )
                                    for g in glyphs
                                ],
                                [g[6] for g in glyphs],
                                spans,
                                to_page,
                            )
                        )
                        logical = logical_words(placed, char_boxes, None if rtl else True, font_size or 0.0)
                        rtl = rtl or (rtl_before is not None and _ends_paragraph(logical, rtl_before))
                        words[:] = logical if rtl else words
                    if char_boxes and not rtl:
                        words[:] = rejoin_cut_words(words, [w.chars for w in words])
                    monospace = fonts.line_is_monospace(text, first, last, i)
                    lines.append(_line(words, font_size, monospace, fonts.line_is_bold(text, first, last)))
                    rtl_before = lines[-1] if rtl else None
                    words.clear()
                glyphs.clear()
                font_size = None
                first = -1
            continue
        if not get_box(textpage, i, c_left, c_right, c_bottom, c_top):
            continue
        visible += 1
        if _is_bad(ch):
            bad += 1
        if font_size is None:
            font_size = sizes.size(i)
            first = i
        x0, y0, x1, y1 = c_left.value, c_bottom.value, c_right.value, c_top.value
        if started:
            left, bottom = min(left, x0), min(bottom, y0)
            right, top = max(right, x1), max(top, y1)
        else:
            left, bottom, right, top = x0, y0, x1, y1
            started = True
            word_start = i
        if is_unwanted(ch):
            continue  # in the word's box (as PDFium's range boxes have it), but no reader sees it
        if char_boxes and chars and len(one := composed(chars[-1] + ch)) == 1:
            # A mark that composes with the letter before it (clean_text composes the word): one
            # character, one box.
            chars[-1] = one
            boxes[-1] = union([boxes[-1], to_page(x0, y0, x1, y1)])
            if glyphs:
                glyphs[-1] = (one, *glyphs[-1][1:])
            continue
        chars.append(ch)
        glyphs.append((ch, x0, y0, x1, y1, len(words), i))
        if char_boxes:
            boxes.append(to_page(x0, y0, x1, y1))
    return lines, visible, bad


def _all_text(textpage: pdfium.PdfTextPage, n: int) -> str | None:
    """The page's characters in one call (a ctypes call per character costs as much as the rest
    of the loop), when they line up one to one with PDFium's character indices; otherwise None,
    and the caller asks character by character. They don't line up when a character lies outside
    the Basic Multilingual Plane (two UTF-16 units) or PDFium leaves an unmapped one out."""
    if n <= 0:
        return None
    buffer = (ctypes.c_ushort * (2 * n + 1))()  # room for a surrogate pair per character
    units = pdfium_c.FPDFText_GetText(textpage, 0, n, buffer)
    text = bytes(memoryview(buffer).cast("B")[: 2 * max(0, units - 1)]).decode("utf-16-le", errors="replace")
    return text if len(text) == n and "\ufffd" not in text else None


def _per_char_text(textpage: pdfium.PdfTextPage, n: int) -> list[str]:
    """One string per character index, asked one by one. PDFium gives a character outside the
    Basic Multilingual Plane as two entries (its UTF-16 surrogates, e.g. from a UCS-2 CMap): they
    are joined into the first and the second left empty. A lone surrogate or a code PDFium could
    not map becomes U+FFFD, counted as unreadable."""
    get_unicode = pdfium_c.FPDFText_GetUnicode
    codes = [get_unicode(textpage, i) for i in range(n)]
    out: list[str] = []
    low = False
    for i, code in enumerate(codes):
        if low:
            out.append("")
            low = False
        elif 0xD800 <= code < 0xDC00 and i + 1 < n and 0xDC00 <= codes[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((code - 0xD800) << 10) + (codes[i + 1] - 0xDC00)))
            low = True
        elif 0 < code < 0x110000 and not 0xD800 <= code < 0xE000:
            out.append(chr(code))
        else:
            out.append("\ufffd")
    return out


def _images(page: pdfium.PdfPage, frame: PageFrame) -> tuple[float, tuple[BBox, ...], tuple[BBox, ...], list[BBox]]:
    """Raster images and vector drawings on the page (top-left point boxes, cut to the visible page:
    a figure's crop is rendered from the page, and what lies outside it cannot be), the share of
    the page the images cover (a scan with a thin text layer is mostly image), and the small marks
    that may be drawn bullets."""
    images, drawings, marks = graphics(page, frame)
    images, drawings = frame.cut(images), frame.cut(drawings)
    covered = sum(box.area for box in images)
    crop = frame.crop
    return (min(1.0, covered / crop.area) if crop.area > 0 else 0.0), tuple(images), tuple(drawings), marks
