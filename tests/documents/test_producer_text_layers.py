"""Text layers from producers other than TeX: sizes set by the text matrix or the CTM (Quartz,
Distiller), letter-spaced titles, reference markers, turned lines."""

from __future__ import annotations

import pytest
from generate import PdfBuilder
from producers import SECTIONS, WRITERS, Run, page_pdf, report_runs, type3_pdf

from ocrqueue.documents.model import PageResult, Word
from ocrqueue.documents.output.markdown import page_markdown_parts

from .helpers import run


def _page(data: bytes) -> PageResult:
    page = run(data).pages[0]
    assert page.source == "text_layer"
    return page


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_sizes_set_by_the_text_matrix_make_headings_and_paragraphs(writer: str) -> None:
    """Size 1 in ``Tf`` scaled to 10, 14 and 20 pt by the text matrix or the CTM: each line has
    the size it is drawn at, so the headings are headings and each paragraph is one block."""
    page = _page(page_pdf(report_runs(), writer))
    sizes = {ln.text: ln.font_size for b in page.blocks for ln in b.lines}
    assert sizes["Queue Reliability Report"] == pytest.approx(20.0)
    assert sizes["Method"] == pytest.approx(14.0)
    assert sizes[SECTIONS[0][1][0]] == pytest.approx(10.0)
    titles = [(b.text, b.level) for b in page.blocks if b.type == "title"]
    assert titles == [("Queue Reliability Report", 1), ("Introduction", 2), ("Method", 2), ("Results", 2)]
    paragraphs = [b for b in page.blocks if b.type == "text"]
    assert [len(b.lines) for b in paragraphs] == [len(body) for _, body in SECTIONS]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_letter_spaced_titles_are_one_heading_with_their_word_spaces(writer: str) -> None:
    """Titles written a glyph at a time, a fifth and three fifths of an em apart, come back as
    their words, one heading each, with the word space between "ANNUAL" and "REPORT" kept; the
    body is untouched."""
    runs = [
        Run(72.0, 60.0, 18.0, ["ANNUAL REPORT"], "F2"),
        Run(72.0, 110.0, 18.0, ["合肥工业大学"], "F3"),
        Run(72.0, 160.0, 10.0, SECTIONS[0][1]),
    ]
    page = _page(page_pdf(runs, writer, spacing={0: 0.2, 1: 0.6}))
    assert [(b.type, b.text) for b in page.blocks] == [
        ("title", "ANNUAL REPORT"),
        ("title", "合肥工业大学"),
        ("text", " ".join(SECTIONS[0][1])),
    ]
    assert [w.text for w in page.blocks[0].lines[0].words] == ["ANNUAL", "REPORT"]


def test_evenly_spaced_single_letters_far_apart_stay_apart() -> None:
    """Single letters two ems apart are a row of a table or a scale (A B C D), not a word."""
    page = _page(
        page_pdf([Run(72.0, 60.0, 10.0, ["ABCD"]), Run(72.0, 90.0, 10.0, SECTIONS[1][1])], "distiller", {0: 2.0})
    )
    assert page.blocks[0].lines[0].text == "A B C D"


# "reference" then a marker set at seven tenths of the size and raised a third of it, then the
# sentence goes on: with Tf at the size and a text rise (Word, LibreOffice), or Tf 1 scaled by the
# text matrix (Distiller), where the rise is scaled too.
MARKED = {
    "rise": "BT /F1 10 Tf 72 700 Td (as shown in the reference) Tj /F1 7 Tf 3.5 Ts (2) Tj /F1 10 Tf 0 Ts",
    "matrix": "BT 10 0 0 10 72 700 Tm /F1 1 Tf (as shown in the reference) Tj /F1 0.7 Tf 0.35 Ts (2) Tj /F1 1 Tf 0 Ts",
}


@pytest.mark.parametrize("how", sorted(MARKED))
def test_reference_markers_stay_apart_from_their_word(how: str) -> None:
    """The marker is a word of its own with the role "superscript", on the same line as the rest
    of the sentence; the text reads as the page does, the Markdown marks it ``^2^``."""
    pdf = PdfBuilder()
    pdf.add_page([MARKED[how] + " ( and its footnote below.) Tj ET"])
    page = _page(pdf.build())
    [block] = page.blocks
    [line] = block.lines
    assert line.text == "as shown in the reference2 and its footnote below."
    assert [(w.text, w.role) for w in line.words[4:6]] == [("reference", None), ("2", "superscript")]
    assert "reference^2^ and its footnote" in page_markdown_parts(page)[0]
    assert Word.from_dict(line.words[5].to_dict()).role == "superscript"


def test_apostrophes_and_same_size_raised_marks_are_not_markers() -> None:
    """A raised mark at the word's own size (an apostrophe, a degree sign) is part of the word."""
    pdf = PdfBuilder()
    pdf.add_page(["BT /F1 10 Tf 72 700 Td (the workers' queue at 20\xb0 stays up) Tj ET"])
    [line] = _page(pdf.build()).blocks[0].lines
    assert all(w.role is None for w in line.words)


LEFT = ["Left column words that run on", "across several lines of text", "until the paragraph ends.", ""]
RIGHT = ["Right column words that run on", "across several lines of text", "until the paragraph ends too.", ""]


@pytest.mark.parametrize("writer", ["distiller", "quartz"])
def test_two_columns_written_row_by_row_read_column_by_column(writer: str) -> None:
    """Two columns 14 pt apart written a baseline at a time across both (left line, right line)
    at size 1 scaled by the text matrix: a heading, then each column's paragraphs in turn."""
    left = [*LEFT, "A second left paragraph here", "ends the left column."]
    right = [*RIGHT, "A second right paragraph here", "ends the right column."]
    runs = [Run(72.0, 60.0, 18.0, ["Two Columns"], "F2")]
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        runs += [Run(x, 100.0 + i * 12.5, 10.0, [t]) for x, t in ((72.0, a), (236.0, b)) if t]
    page = _page(page_pdf(runs, writer))
    assert [(b.type, b.text) for b in page.blocks] == [
        ("title", "Two Columns"),
        ("text", " ".join(left[:3])),
        ("text", " ".join(left[4:])),
        ("text", " ".join(right[:3])),
        ("text", " ".join(right[4:])),
    ]


@pytest.mark.parametrize("unit", [1000.0, 1.0])
def test_type3_fonts_scaled_by_the_text_matrix(unit: float) -> None:
    """A Type3 font (glyphs drawn by the PDF itself) at size 1 under a scaling text matrix, its
    glyph space at the usual thousand units to the em or at one: sizes as drawn, headings found."""
    page = _page(type3_pdf(report_runs(), unit))
    sizes = {ln.text: ln.font_size for b in page.blocks for ln in b.lines}
    assert sizes["Method"] == pytest.approx(14.0)
    assert sizes[SECTIONS[1][1][0]] == pytest.approx(10.0)
    assert [b.text for b in page.blocks if b.type == "title"] == ["Queue Reliability Report", *(h for h, _ in SECTIONS)]
    assert len([b for b in page.blocks if b.type == "text"]) == len(SECTIONS)


HARBOUR = [
    "The harbour board met on Monday",
    "and agreed the new pier plans.",
    "Work starts in the spring, when",
    "the storms have passed, and the",
    "pier is to open in the autumn.",
    "Fees for moorings rise with the",
    "costs of the works, as the table",
    "beside this column shows for each",
    "year since the board was formed.",
    "Owners may appeal to the board.",
]
FEES = [
    ["Year", "Berths", "Fee"],
    ["2019", "120", "310.00"],
    ["2020", "124", "325.50"],
    ["2021", "131", "340.00"],
    ["2022", "138", "362.75"],
    ["2023", "140", "380.00"],
]


def _column_beside_a_table(writer: str) -> bytes:
    """A column of prose and, 25 pt to its right, a table ruled only across (top, under the
    header, bottom), written a baseline at a time across both as Distiller writes form
    instructions: each prose line, then the table row on its baseline. PDFium gives one line per
    baseline, from the prose into the table, its centre over the table."""
    write, size, leading, top = WRITERS[writer], 10.0, 14.0, 100.0
    columns = (252.0, 330.0, 410.0)
    ops = []
    for i, text in enumerate(HARBOUR):
        ops.append(write(Run(72.0, top + i * leading, size, [text])))
        if 1 <= i <= len(FEES):
            font, row = ("F2" if i == 1 else "F1"), FEES[i - 1]
            ops += [write(Run(x, top + i * leading, size, [cell], font)) for x, cell in zip(columns, row, strict=True)]
    ops += [
        PdfBuilder.line(columns[0] - 4, top + k * leading - 3, 530.0, top + k * leading - 3, 0.6)
        for k in (1, 2, len(FEES) + 1)
    ]
    pdf = PdfBuilder()
    pdf.add_page(ops)
    return pdf.build()


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_prose_beside_a_table_written_row_by_row_stays_out_of_it(writer: str) -> None:
    """Each line across the column and the table is cut at the gutter and its pieces placed on
    their own: the table holds its cells alone, the prose reads in order. Taken whole by their
    centres, the lines went into the table, the prose as its first column (before: the table
    "and agreed the new pier plans. | Year | Berths | Fee" ...)."""
    page = _page(_column_beside_a_table(writer))
    tables = [b.table.grid() for b in page.blocks if b.table is not None]
    assert tables == [FEES]
    assert " ".join(b.text for b in page.blocks if b.type == "text") == " ".join(HARBOUR)
