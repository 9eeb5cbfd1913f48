"""Layouts beyond manuals (issue 22), on pages Chromium prints from HTML (a producer other than TeX):
a newspaper in CSS columns, a two-column exam sheet, a letter in a typewriter font, a back cover
whose prose lies over a picture. Each is read from its text layer and, rendered at 200 dpi, by OCR.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from ocrqueue.documents import DocumentResult

from .helpers import printed_by_chromium, run

RENDER_DPI = 200

# Each sentence names its number, so the order the page is read in shows in the Markdown.
NUMBERS = [
    *("one", "two", "three", "four", "five", "six", "seven", "eight"),
    *("nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
]


def _story(count: int) -> str:
    sentence = "This is sentence {} of the story about the harbour, and it runs on for a while."
    return " ".join(sentence.format(NUMBERS[i]) for i in range(count))


NEWSPAPER = f"""<html><body style="font-family:serif;margin:0.6in">
<h1 style="font-size:34pt;text-align:center;margin:0">The Harbour Gazette</h1>
<div style="column-count:4;column-gap:0.25in;font-size:9.5pt;text-align:justify"><p>{_story(16)}</p></div>
</body></html>"""

EXAM = (
    """<html><body style="font-family:serif;font-size:11pt;margin:0.8in">
<h1 style="font-size:18pt;text-align:center">Final Examination in Physics</h1>
<div style="column-count:2;column-gap:0.4in">"""
    + "".join(
        f"<p>Question {NUMBERS[i]}. A stone is thrown from the harbour wall at an angle of thirty degrees; "
        "find how far from the wall it lands, and how long it stays in the air.</p>"
        for i in range(10)
    )
    + "</div></body></html>"
)

LETTER_BODY = (
    "Thank you for your letter of the fourth of March. The committee met on Tuesday to review the "
    "harbour plans, and the members agreed that the new pier should be finished before the winter "
    "storms arrive. Several residents spoke about the noise of the works at night."
)
LETTER = f"""<html><body style="font-family:'Courier New',monospace;font-size:11pt;margin:1in">
<p>Mr. John Smith<br>14 Harbour Road<br>Portsmouth</p><p>12 March 1961</p><p>Dear Mr. Smith,</p>
<p>{LETTER_BODY}</p><p>{LETTER_BODY}</p><p>Yours sincerely,</p><br><br><p>A. ANDERSON<br>AA</p>
</body></html>"""

COVER_TEXT = (
    "The committee met on Tuesday to review the harbour plans, and the members agreed that the new "
    "pier should be finished before the winter storms arrive. Several residents spoke about the noise "
    "of the works at night, and the council promised to limit them to daytime hours. "
)


ITEMS = [
    ("1", "Office chair, black", "2", "149.90", "19 %", "299.80"),
    ("2", "Desk lamp LED", "4", "24.50", "7.7 %", "98.00"),
    ("3", "Paper A4, 500 sheets", "10", "4.75", "7.7 %", "47.50"),
    ("4", "Stapler heavy duty", "1", "32.00", "19 %", "32.00"),
]
ITEM_HEADER = ("Item", "Description", "Qty", "Unit price", "VAT", "Amount")
RIGHT = ' style="text-align:right"'


def _invoice() -> str:
    """An invoice's items in an HTML table without borders: numbers right-aligned."""
    row = "<tr>" + "".join(f"<td{RIGHT if c > 1 else ''}>{{}}</td>" for c in range(6)) + "</tr>"
    rows = "".join(row.format(*item) for item in [ITEM_HEADER, *ITEMS])
    return f"""<html><body style="font-family:Arial,sans-serif;font-size:10.5pt;margin:0.8in">
<h1 style="font-size:22pt">INVOICE</h1><p>Invoice no.: 1234</p>
<table style="border-collapse:collapse;width:100%">{rows}</table>
<p style="text-align:right;margin-top:18pt">Total: 477.30 EUR</p>
<p>Payment within 30 days to the account below. Thank you for your order.</p></body></html>"""


LISTING_ROWS = [
    ("15", "CPLXSXP", "complex vectors"),
    ("16", "STRSXP", "string vectors"),
    ("17", "DOTSXP", "dot-dot-dot object"),
    ("18", "ANYSXP", "make any args work"),
    ("19", "VECSXP", "list (generic vector)"),
    ("20", "EXPRSXP", "expression vector"),
    ("21", "BCODESXP", "byte code"),
    ("22", "EXTPTRSXP", "external pointer"),
]


def _listing() -> str:
    """A listing of numbers, names and descriptions set in three columns without rules."""
    cell = '<td style="padding-right:28pt">{}</td>'
    rows = "".join("<tr>" + "".join(cell.format(v) for v in row) + "</tr>" for row in LISTING_ROWS)
    return f"""<html><body style="font-family:serif;font-size:11pt;margin:1in">
<p>{LETTER_BODY}</p><table style="border-collapse:collapse">{rows}</table><p>{LETTER_BODY}</p></body></html>"""


FORM_FIELDS = [
    ("Name:", "Maria Keller"),
    ("Address:", "Lindenweg 7, 8004 Bern"),
    ("Vehicle registration:", "ZH 123 456"),
    ("Fee:", "CHF 780.00"),
]


def _form() -> str:
    """A form's fields: each key in one column, its value in the next, no rules."""
    rows = "".join(f'<tr><td style="width:2.2in">{k}</td><td>{v}</td></tr>' for k, v in FORM_FIELDS)
    return f"""<html><body style="font-family:Arial;font-size:11pt;margin:1in">
<h1 style="font-size:20pt">Application for a parking permit</h1><table>{rows}</table>
<p>I confirm that the information above is correct.</p></body></html>"""


def _cover() -> str:
    """Prose over a picture (a JPEG as the box's background), as back covers are set."""
    import base64

    y, x = np.mgrid[0:600, 0:450]
    noise = np.random.default_rng(1).normal(0, 6, (600, 450, 3))
    picture = np.stack([200 + 40 * np.sin(x / 40), 215 + 30 * np.cos(y / 50), 230 + 20 * np.sin((x + y) / 60)], -1)
    buffer = io.BytesIO()
    Image.fromarray(np.clip(picture + noise, 0, 255).astype(np.uint8)).save(buffer, "JPEG", quality=85)
    url = "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()
    return f"""<html><body style="margin:0"><div style="margin:0.8in;height:8.5in;background-image:url({url});
background-size:cover;padding:0.5in;font-family:Arial;font-size:12pt"><p>{COVER_TEXT * 3}</p>
<p>{COVER_TEXT * 2}</p></div></body></html>"""


@pytest.fixture(scope="module")
def printed() -> dict[str, bytes]:
    """Each page printed to PDF by Chromium."""
    return printed_by_chromium(
        {
            "newspaper": NEWSPAPER,
            "exam": EXAM,
            "letter": LETTER,
            "cover": _cover(),
            "invoice": _invoice(),
            "listing": _listing(),
            "form": _form(),
        },
        backgrounds=True,
    )


def _read(pdf: bytes, path: str) -> DocumentResult:
    """The page from its text layer, or rendered to a PNG and read by OCR."""
    if path == "text_layer":
        return run(pdf)
    image = pdfium.PdfDocument(pdf)[0].render(scale=RENDER_DPI / 72, grayscale=True).to_pil()
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(RENDER_DPI, RENDER_DPI))
    return run(buffer.getvalue())


def _numbers_in_order(markdown: str, word: str) -> list[int]:
    found = re.findall(rf"{word} ({'|'.join(NUMBERS)})\b", markdown)
    return [NUMBERS.index(n) for n in found]


PATHS = ["text_layer", "ocr"]


@pytest.mark.parametrize("path", PATHS)
def test_newspaper_columns_are_read_one_after_another(printed: dict[str, bytes], path: str) -> None:
    """Four justified columns 0.25 in apart: each read down before the next, never as a table or
    as code (their short justified lines keep a regular pitch)."""
    result = _read(printed["newspaper"], path)
    order = _numbers_in_order(result.to_markdown(), "sentence")
    assert len(order) >= 14
    assert order == sorted(order)
    types = {b.type for b in result.pages[0].blocks}
    assert not types & {"table", "code", "figure"}


@pytest.mark.parametrize("path", PATHS)
def test_exam_sheet_columns_are_not_interleaved(printed: dict[str, bytes], path: str) -> None:
    result = _read(printed["exam"], path)
    order = _numbers_in_order(result.to_markdown(), "Question")
    assert len(order) >= 9
    assert order == sorted(order)
    assert not {b.type for b in result.pages[0].blocks} & {"table", "code", "figure"}


@pytest.mark.parametrize("path", PATHS)
def test_typewritten_letter_is_prose_not_code(printed: dict[str, bytes], path: str) -> None:
    """Courier alone does not make code; the signature's initials are no heading."""
    result = _read(printed["letter"], path)
    markdown = result.to_markdown()
    assert "```" not in markdown
    assert not [b for b in result.pages[0].blocks if b.type in ("code", "title")]
    assert "the new pier should be finished before the winter storms arrive" in markdown


@pytest.mark.parametrize("path", PATHS)
def test_prose_over_a_picture_is_text_not_a_figure(printed: dict[str, bytes], path: str) -> None:
    result = _read(printed["cover"], path)
    assert "figure" not in {b.type for b in result.pages[0].blocks}
    assert "promised to limit them to daytime hours" in result.to_markdown()


def _tables(result: DocumentResult) -> list[list[list[str]]]:
    return [b.table.grid() for b in result.pages[0].blocks if b.table is not None]


@pytest.mark.parametrize("path", PATHS)
def test_invoice_items_are_a_table_with_exact_numbers(printed: dict[str, bytes], path: str) -> None:
    """A table without any rules, read row by row; "7.7 %" keeps its decimal point."""
    (table,) = _tables(_read(printed["invoice"], path))
    # Tesseract reads "19 %" as one word, "19%": the space is no number's.
    assert [tuple(cell.replace(" %", "%") for cell in row) for row in table] == [
        tuple(cell.replace(" %", "%") for cell in row) for row in [ITEM_HEADER, *ITEMS]
    ]


@pytest.mark.parametrize("path", PATHS)
def test_borderless_listing_is_read_row_by_row(printed: dict[str, bytes], path: str) -> None:
    (table,) = _tables(_read(printed["listing"], path))
    assert [tuple(row) for row in table] == LISTING_ROWS


@pytest.mark.parametrize("path", PATHS)
def test_form_keys_stay_beside_their_values(printed: dict[str, bytes], path: str) -> None:
    (table,) = _tables(_read(printed["form"], path))
    assert [tuple(row) for row in table] == FORM_FIELDS
