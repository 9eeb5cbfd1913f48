"""Pages of prose, in one column or two, drawn as an image or written as a text-layer PDF.

Several paragraphs of running text under a title: a page read in the wrong order (lines or columns
interleaved, paragraphs swapped) shows in an order-sensitive CER, which a page of short separate
lines would hide. The text is written for these tests.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from .generate import DEJAVU, DEJAVU_BOLD, DPI, PdfBuilder, _pdf_string

TITLE = "Keeping Records Through the Winter"
FOOTER = "Page 3"
PARAGRAPHS = [
    "The parish clerk kept the registers in a wooden chest under the vestry window, and every "
    "autumn he carried them to the schoolhouse, where the stove kept the damp away from the paper. "
    "Each volume was wrapped in oilcloth and tied with string, and the clerk wrote the date of the "
    "move on a card that he slipped inside the front cover.",
    "When the thaw came in March the chest went back to the church. The clerk compared every "
    "volume against his list before he signed for it, because a missing book meant a letter to the "
    "bishop and a long search through the cupboards of three villages.",
    "Visitors who wanted to read an entry had to ask in writing. The clerk answered within a week, "
    "copying the lines by hand onto a printed form, and he charged a small fee that went towards "
    "the cost of new ink, blotting paper and the occasional repair of a torn binding.",
    "Over forty years he lost only one page, a leaf from the burial register of the hard winter, "
    "which a mouse had found before he did. He copied what remained of it into the margin of the "
    "next page and added a note explaining why the handwriting changed halfway down.",
]
MARGIN_IN = 0.9
PAGE_IN = (8.27, 11.69)  # A4
BODY_PT, TITLE_PT, LEADING = 11.0, 18.0, 1.45


def text() -> str:
    """What a correct reading of the body holds, in reading order (the page number aside)."""
    return "\n\n".join([TITLE, *PARAGRAPHS])


def _wrap(paragraph: str, width: float, measure: ImageFont.FreeTypeFont) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in paragraph.split():
        candidate = f"{line} {word}".strip()
        if line and measure.getlength(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line]


def _layout(columns: int) -> list[tuple[float, float, float, str, bool]]:
    """(x, top, size, text, bold) in points of every line of the page: the title across the top,
    then the paragraphs filling ``columns`` columns in turn. Lines are wrapped by DejaVu Sans's
    widths, which are wider than Helvetica's, so they fit in either font."""
    page_w, page_h = PAGE_IN[0] * 72, PAGE_IN[1] * 72
    margin = MARGIN_IN * 72
    gutter = 0.4 * 72
    col_w = (page_w - 2 * margin - (columns - 1) * gutter) / columns
    measure = ImageFont.truetype(DEJAVU, round(BODY_PT * 10))
    step = BODY_PT * LEADING
    lines = [(margin, margin, TITLE_PT, TITLE, True)]
    top = margin + TITLE_PT * 2.2
    column = 0
    wrapped = [_wrap(p, col_w * 10, measure) for p in PARAGRAPHS]
    per_column = (sum(len(w) for w in wrapped) + len(wrapped)) / columns
    used = 0.0
    for paragraph in wrapped:
        if columns > 1 and used >= per_column * (column + 1) - 1 and column < columns - 1:
            column += 1
            top = margin + TITLE_PT * 2.2
        for line in paragraph:
            lines.append((margin + column * (col_w + gutter), top, BODY_PT, line, False))
            top += step
        top += step * 0.8
        used += len(paragraph) + 1
    assert top < page_h - 2 * margin, "the prose does not fit on the page"
    # A page number at the foot: the middle of the ink then lies on blank paper below the text.
    return [*lines, (page_w / 2 - 12, page_h - margin, BODY_PT, FOOTER, False)]


def prose_image(columns: int = 1, dpi: int = DPI) -> Image.Image:
    """The page drawn at ``dpi`` in DejaVu Sans."""
    scale = dpi / 72
    image = Image.new("RGB", (round(PAGE_IN[0] * dpi), round(PAGE_IN[1] * dpi)), "white")
    draw = ImageDraw.Draw(image)
    fonts: dict[tuple[float, bool], ImageFont.FreeTypeFont] = {}
    for x, top, size, line, bold in _layout(columns):
        key = (size, bold)
        if key not in fonts:
            fonts[key] = ImageFont.truetype(DEJAVU_BOLD if bold else DEJAVU, round(size * scale))
        draw.text((x * scale, top * scale), line, font=fonts[key], fill="black")
    return image


def prose_pdf_ops(columns: int = 1, word_by_word: bool = False) -> list[str]:
    """The page's text in Helvetica, as PdfBuilder operators on an upright A4 page; with
    ``word_by_word`` a line is shown a word at a time, one text object each, as groff and many
    other producers write it."""
    if word_by_word:
        return [
            PdfBuilder.text(x, top, size, line, font="F2" if bold else "F1").replace(
                f"{_pdf_string(line)} Tj", " ".join(f"{_pdf_string(w + ' ')} Tj" for w in line.split())
            )
            for x, top, size, line, bold in _layout(columns)
        ]
    return [
        PdfBuilder.text(x, top, size, line, font="F2" if bold else "F1")
        for x, top, size, line, bold in _layout(columns)
    ]
