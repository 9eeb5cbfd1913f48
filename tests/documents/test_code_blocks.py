"""Monospaced code becomes a code block that keeps its line breaks and indentation, on both paths,
and never runs into the prose around it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from generate import CODE_AFTER, CODE_BEFORE, CODE_LINES, ENGLISH, code_page, code_pdf, encode, text_page
from PIL import Image

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.code import code_text, is_source_beside_output, mark_monospace
from ocrqueue.documents.layout.raster import Island
from ocrqueue.documents.layout.straighten import deskew
from ocrqueue.documents.model import Block, Line, Word
from ocrqueue.documents.ocr.assemble import Figures, OcrPage, island_blocks, whitespace_table

from .helpers import run

R_INTRO_PAGE = Path(__file__).resolve().parents[1] / "data" / "r-intro-page44.pdf"
LISTING = "\n".join(CODE_LINES)


@pytest.mark.parametrize("kind", ["text_layer", "ocr"])
def test_code_is_a_block_of_its_own_with_lines_and_indentation(kind: str) -> None:
    data = code_pdf() if kind == "text_layer" else encode(code_page(), "PNG")
    result = run(data)
    page = result.pages[0]
    assert page.source == ("text_layer" if kind == "text_layer" else "tesseract")
    assert [(b.type, b.text) for b in page.blocks] == [("text", CODE_BEFORE), ("code", LISTING), ("text", CODE_AFTER)]
    assert all(ln.monospace for ln in page.blocks[1].lines)
    assert f"{CODE_BEFORE}\n\n```\n{LISTING}\n```\n\n{CODE_AFTER}" in result.to_markdown()


def test_prose_pages_have_no_code() -> None:
    page = run(encode(text_page(ENGLISH, False, title="Supplier Invoices"), "PNG")).pages[0]
    assert "code" not in [b.type for b in page.blocks]
    assert not any(ln.monospace for b in page.blocks for ln in b.lines)


def test_r_manual_listing_is_code_in_typewriter_font() -> None:
    """TeX's CMTT10 does not set the FixedPitch flag; its name says what it is."""
    blocks = run(R_INTRO_PAGE.read_bytes()).pages[0].blocks
    code = [b.text for b in blocks if b.type == "code"]
    assert "> plot(ecdf(eruptions), do.points=FALSE, verticals=TRUE)" in code
    prose = next(b.text for b in blocks if b.text.startswith("We can plot the empirical"))
    assert "> plot" not in prose


def _words(line: str, pitch: float, y: float, bearing: float = 0.6) -> Line:
    words = []
    column = 0
    for token in line.split(" "):
        if token:
            x0 = column * pitch + bearing
            words.append(Word(token, BBox(x0, y, x0 + len(token) * pitch - 2 * bearing, y + 10)))
        column += len(token) + 1
    return Line(line.strip(), BBox(words[0].bbox.x0, y, words[-1].bbox.x1, y + 10), 0.9, tuple(words))


def test_indentation_and_alignment_come_from_the_character_grid() -> None:
    source = ["def f(x):", "    return x  # twice", "", "f(1)"]
    lines = [_words(text, 6.0, 14.0 * i) for i, text in enumerate(source) if text]
    marked = mark_monospace(lines)
    assert all(ln.monospace for ln in marked)
    assert code_text(marked) == "def f(x):\n    return x  # twice\nf(1)"


def _cell_line(left: str, right: str, y: float) -> Line:
    """One OCR line across a two-column table without rules: ``left`` at x 100, ``right`` at x 400."""
    words = []
    for text, x0 in ((left, 100.0), (right, 400.0)):
        for i, word in enumerate(text.split()):
            words.append(Word(word, BBox(x0 + 60 * i, y, x0 + 60 * i + 50, y + 10)))
    return Line(
        " ".join(w.text for w in words), BBox(words[0].bbox.x0, y, words[-1].bbox.x1, y + 10), 0.9, tuple(words)
    )


SOURCE = ["\\begin{equation}", "E=mc^2", "\\end{equation}", "\\[ \\boxed{E=mc^2} \\]"]
OUTPUT = ["E = mc2 (3.1)", "", "E = mc2", "E = mc2"]


def test_source_beside_its_output_is_read_as_code_then_the_output() -> None:
    """A LaTeX manual's example beside its typeset result: read as one table, the rows interleaved
    the two (latex-notes-zh p. 34, clean render: CER 0.15)."""
    lines = [_cell_line(src, out, 20.0 * i) for i, (src, out) in enumerate(zip(SOURCE, OUTPUT, strict=True))]
    code, output = whitespace_table(lines, BBox(100, 0, 600, 80), 842.0, 0.0)
    assert code.type == "code" and [" ".join(line.split()) for line in code.text.split("\n")] == SOURCE
    assert output.type == "text" and output.text == "E = mc2 (3.1) E = mc2 E = mc2"


def test_a_table_of_commands_stays_a_table() -> None:
    """A table listing symbols and their commands has markup in more than its first column."""
    rows = [("alpha \\alpha", "theta \\theta"), ("beta \\beta", "iota \\iota"), ("gamma \\gamma", "kappa \\kappa")]
    (table,) = whitespace_table(
        [_cell_line(a, b, 20.0 * i) for i, (a, b) in enumerate(rows)], BBox(100, 0, 600, 60), 842.0, 0.0
    )
    assert table.type == "table"
    assert not is_source_beside_output([("Name", "Size"), ("report.pdf", "12 kB")])


def test_a_table_of_commands_and_what_they_do_stays_a_table() -> None:
    """ctex p. 9: font commands beside their sizes, every command on a row of its own (read as
    source and output, its CER went from 0.09 to 0.23)."""
    rows = [("\\tiny", "5 pt"), ("\\small", "9 pt"), ("\\normalsize", "10.5 pt"), ("\\large", "12 pt")]
    assert not is_source_beside_output(rows)
    assert is_source_beside_output([*rows[:2], ("\\end{tabular}", ""), ("\\hline", "")])


def _proportional(line: str, y: float) -> Line:
    """Words set in a proportional font: "i" and "l" a third as wide as "m" and "w"."""
    widths = {"i": 2.5, "l": 2.5, "t": 3.5, "f": 3.5, "r": 4.0, "m": 9.0, "w": 9.0}
    words, x = [], 0.0
    for token in line.split():
        width = sum(widths.get(c, 5.5) for c in token)
        words.append(Word(token, BBox(x, y, x + width, y + 10)))
        x += width + 3.0
    return Line(line, BBox(0.0, y, x - 3.0, y + 10), 0.9, tuple(words))


@pytest.mark.parametrize(
    ("middle", "code"), [("included in an aggregate,", False), ("./configure --prefix=/usr --enable-shared", True)]
)
def test_a_lone_line_fitting_a_pitch_between_prose_is_prose_unless_it_reads_as_code(middle: str, code: bool) -> None:
    """A justified line of a few words fits a pitch by chance, and a newspaper's paragraph was split
    around it; a command between two lines of prose is code all the same."""
    lines = [
        _proportional("When the whole document is filled with", 0.0),
        _words(middle, 6.0, 14.0),
        _proportional("this License does not apply to the many works", 28.0),
    ]
    assert mark_monospace([lines[1]])[0].monospace
    assert [ln.monospace for ln in mark_monospace(lines)] == [False, code, False]


def _large(line: str, y: float) -> Line:
    """A line of ``_words`` set at twice the size: pitch 12, boxes 20 high."""
    small = _words(line, 12.0, y)
    words = tuple(Word(w.text, BBox(w.bbox.x0, y, w.bbox.x1, y + 20)) for w in small.words)
    return Line(small.text, BBox(small.bbox.x0, y, small.bbox.x1, y + 20), 0.9, words)


@pytest.mark.parametrize(("text", "code"), [("Modified version of the", False), ("make install DESTDIR=/tmp", True)])
def test_lines_in_large_type_are_monospace_only_when_they_read_as_code(text: str, code: bool) -> None:
    """A headline's lines of a few words fit a pitch by chance, and one headline came back as two
    titles: its lines that fitted one were set apart from those that did not."""
    line = _large(text, 0.0)
    assert mark_monospace([line])[0].monospace
    assert mark_monospace([line], body=10.0)[0].monospace is code
    assert mark_monospace([line], body=18.0)[0].monospace


class LinesRead:
    """An island reader that gives the lines an engine read inside an island (points)."""

    def __init__(self, lines: list[Line]) -> None:
        self.lines = lines

    def read(self, island: Island, task: str) -> tuple[list[Line], str | None]:
        return self.lines, None

    def ruled_table(self, island: Island, grid: object) -> tuple[Block, list[Line]]:
        raise AssertionError("a figure has no grid")


def _figure_blocks(lines: list[Line]) -> list[Block]:
    """The blocks of a figure island over the whole of a blank letter page at 100 dpi, its labels ``lines``."""
    dpi = 100
    straight = deskew(Image.fromarray(np.full((1100, 850), 255, np.uint8)), dpi)
    page = OcrPage(0, 1100 * 72 / dpi, straight, None, dpi, dpi / 72, None, ("eng",))  # type: ignore[arg-type]
    return island_blocks(page, Island("figure", (0, 0, 850, 1100)), Figures(page), LinesRead(lines), 10.0)


def test_an_example_the_layout_model_calls_a_figure_is_read_as_code_then_its_output() -> None:
    """The layout model calls many a framed LaTeX example a figure; its labels read in one
    reading order interleaved the source and the output line by line (lshort-zh p. 43 scan:
    CER 0.17)."""
    lines = [_cell_line(src, out, 20.0 * i) for i, (src, out) in enumerate(zip(SOURCE, OUTPUT, strict=True))]
    code, output = _figure_blocks(lines)
    assert code.type == "code" and [" ".join(line.split()) for line in code.text.split("\n")] == SOURCE
    assert output.type == "figure" and output.text.split("\n") == [out for out in OUTPUT if out]
    assert output.image is not None and output.bbox.x0 > code.bbox.x1


def test_a_diagram_with_labels_in_two_columns_stays_one_figure() -> None:
    labels = [("Input queue", "Workers"), ("Store", ""), ("Results", "Events")]
    lines = [_cell_line(left, right, 20.0 * i) for i, (left, right) in enumerate(labels)]
    (figure,) = _figure_blocks(lines)
    assert figure.type == "figure"
    assert figure.text == "Input queue Workers\nStore\nResults Events"
