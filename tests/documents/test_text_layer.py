"""Born-digital PDFs: text comes from the text layer, with positions, without OCR."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from generate import (
    CHINESE,
    ENGLISH,
    HOSTILE,
    LEFT_COLUMN,
    MIXED,
    RIGHT_COLUMN,
    TABLE,
    PdfBuilder,
    born_digital_pdf,
)
from metrics import cer
from PIL import Image

from ocrqueue.documents import ProcessOptions, open_document, process_page
from ocrqueue.documents.input import pdf as pdf_module
from ocrqueue.documents.input import pdf_text as textlayer

from .conftest import Samples
from .helpers import run, unmeasured


def test_text_layer_text_and_boxes(samples: Samples) -> None:
    result = run(samples.data("born_digital"))
    first = result.pages[0]
    assert first.source == "text_layer"
    assert first.dpi is None
    body = "\n".join(b.text for b in first.blocks if b.type == "text")
    for sentence in ENGLISH:
        assert sentence in body
    lines = [ln for b in first.blocks for ln in b.lines]
    invoice = next(ln for ln in lines if ln.text == ENGLISH[0])
    # Drawn at x=72pt, top 130pt (baseline below it) on an A4 page, in top-left point coordinates.
    assert 71 <= invoice.bbox.x0 <= 74
    assert 128 <= invoice.bbox.y0 <= 134
    assert invoice.bbox.y1 < 145
    assert invoice.words[0].text == "Invoices"
    assert invoice.words[0].bbox.x1 < invoice.words[1].bbox.x0
    assert invoice.font_size == 11


def test_chinese_text_layer_lines_in_order_with_boxes(samples: Samples) -> None:
    """Two-byte CJK codes through a predefined CMap, Latin runs in another font on the same line."""
    page = run(samples.data("chinese_pdf")).pages[0]
    assert page.source == "text_layer"
    lines = [ln for b in page.blocks for ln in b.lines]
    assert [ln.text for ln in lines] == ["Shareholder Notice", *CHINESE, MIXED[0]]
    tops = [ln.bbox.y0 for ln in lines]
    assert tops == sorted(tops)
    assert all(71 <= ln.bbox.x0 <= 74 for ln in lines)
    assert "会议地点为北京市朝阳区建国路八十八号。" in run(samples.data("chinese_pdf")).to_markdown()


def test_chinese_born_digital_page_read_by_ocr_too(samples: Samples) -> None:
    page = run(samples.data("chinese_pdf"), mode="ocr", engine="tesseract", languages=("eng", "chi_sim")).pages[0]
    assert page.source == "tesseract"
    expected = "".join(["Shareholder Notice", *CHINESE, MIXED[0]]).replace(" ", "")
    read = "".join(b.text for b in page.blocks).replace(" ", "").replace("\n", "")
    assert cer(expected, read) < 0.02


def test_block_types_from_text_layer(samples: Samples) -> None:
    page = run(samples.data("born_digital")).pages[0]
    kinds = [(b.type, b.text) for b in page.blocks]
    assert kinds[0] == ("header", "ACME Corporation internal report")
    assert kinds[1] == ("title", "Supplier Invoices")
    assert ("list", "first\nsecond") in kinds
    assert kinds[-1] == ("footer", "1")


def test_two_column_reading_order_from_text_layer(samples: Samples) -> None:
    page = run(samples.data("born_digital")).pages[1]
    text = " ".join(b.text for b in page.blocks if b.type == "text")
    positions = [text.index(s) for s in LEFT_COLUMN + RIGHT_COLUMN]
    assert positions == sorted(positions)


def test_ruled_table_from_vector_rules(samples: Samples) -> None:
    page = run(samples.data("born_digital")).pages[2]
    tables = [b.table for b in page.blocks if b.table is not None]
    assert len(tables) == 1
    assert tables[0].grid() == TABLE
    caption = next(b for b in page.blocks if b.type == "caption")
    assert page.blocks.index(caption) < [b.type for b in page.blocks].index("table")


BOOKTABS = [
    ["Fruit", "Price", "Origin"],
    ["Apples", "3.20", "Normandy"],
    ["Pears", "2.75", "Anjou"],
    ["Plums", "4.10", "Agen"],
]


def _open_tables_pdf() -> bytes:
    """A running head over a rule, a paragraph, a table ruled only across (booktabs: top rule,
    rule under the header, bottom rule) and a table with rules between its columns only."""
    x0, x1, row = 72.0, 432.0, 20.0
    ops = [PdfBuilder.text(72, 30, 9, "ACME Corporation internal report"), PdfBuilder.line(72, 44, 523, 44, 0.5)]
    ops += [PdfBuilder.text(72, 70 + i * 18, 11, line) for i, line in enumerate(ENGLISH)]
    top = 180.0
    ops += [PdfBuilder.line(x0, y, x1, y, 0.8) for y in (top, top + row + 4, top + 4 + row * len(BOOKTABS) + 4)]
    for r, cells in enumerate(BOOKTABS):
        y = top + 6 + r * row + (4 if r else 0)
        ops += [PdfBuilder.text(x0 + 6 + c * 130, y, 11, t) for c, t in enumerate(cells)]
    top = 330.0
    ops += [PdfBuilder.line(x0, top + r * row, x1, top + r * row, 0.5) for r in range(len(TABLE) + 1)]
    ops += [PdfBuilder.line(x0 + c * 120, top, x0 + c * 120, top + len(TABLE) * row, 0.5) for c in (1, 2)]
    for r, cells in enumerate(TABLE):
        ops += [PdfBuilder.text(x0 + 6 + c * 120, top + 5 + r * row, 11, t) for c, t in enumerate(cells)]
    pdf = PdfBuilder()
    pdf.add_page(ops)
    return pdf.build()


def test_tables_ruled_only_across_or_between_columns_are_read_row_by_row() -> None:
    """Booktabs tables and tables without side rules used to come out column after column (or
    lose their outer columns); the page's header rule and paragraph stay out of them."""
    page = run(_open_tables_pdf()).pages[0]
    tables = [b.table for b in page.blocks if b.table is not None]
    assert [t.grid() for t in tables] == [BOOKTABS, TABLE]
    prose = " ".join(b.text for b in page.blocks if b.type == "text")
    assert all(line in prose for line in ENGLISH)


def test_markdown_leaves_out_headers_unless_asked(samples: Samples) -> None:
    result = run(samples.data("born_digital"))
    md = result.to_markdown()
    assert "# Supplier Invoices" in md
    assert "ACME Corporation" not in md
    assert "| Apples | 12 | 3.50 |" in md
    assert "- first\n- second" in md
    assert "ACME Corporation internal report" in result.to_markdown(include_headers=True)


def test_hostile_text_stays_text_in_markdown(samples: Samples) -> None:
    md = run(samples.data("born_digital")).to_markdown()
    assert "<script>" not in md and "<b>" not in md
    assert "Use &lt;script>alert(1)&lt;/script> & &lt;b>bold&lt;/b> * not # a heading" in md


def test_modes_force_a_path(samples: Samples) -> None:
    ocr = run(samples.data("born_digital"), mode="ocr")
    assert {p.source for p in ocr.pages} == {"tesseract"}
    ocr_text = "\n".join(b.text for b in ocr.pages[0].blocks if b.type == "text")
    assert cer("\n".join([*ENGLISH, HOSTILE]), ocr_text) < 0.02
    scanned = run(samples.data("scanned_pdf"))
    assert scanned.pages[0].source == "tesseract"
    assert any("scanned image" in w for w in scanned.pages[0].warnings)
    text_only = run(samples.data("scanned_pdf"), mode="text")
    assert text_only.pages[0].source == "text_layer"
    assert "Invoices" not in text_only.to_markdown()


def test_text_layer_path_never_renders(samples: Samples, monkeypatch: pytest.MonkeyPatch) -> None:
    # Speed comes from skipping rendering entirely (bench/ocr.py measures pages/s).
    def fail(self: object, dpi: int) -> None:
        raise AssertionError("rendered a text-layer page")

    monkeypatch.setattr(pdf_module.PdfPage, "render", fail)
    with open_document(samples.data("long_pdf")) as doc:
        results = [process_page(page, ProcessOptions()) for page in doc.pages()]
    assert len(results) == 30
    assert all(r.source == "text_layer" and r.blocks for r in results)


def test_embedded_image_becomes_a_cropped_figure(samples: Samples) -> None:
    result = run(samples.data("figure_pdf"))
    page = result.pages[0]
    assert page.source == "text_layer"
    kinds = [b.type for b in page.blocks]
    assert kinds == ["title", "text", "figure", "caption", "text"]
    figure = page.blocks[2]
    assert figure.bbox.to_list() == [72.0, 200.0, 372.0, 400.0]
    crop = Image.open(io.BytesIO(page.images[figure.image or ""]))
    # The chart's 300 x 200 point area rendered at the default 200 dpi.
    assert crop.size == pytest.approx((833, 556), abs=2)
    assert f"![figure]({figure.image})" in result.to_markdown()


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_boxes_follow_page_rotation(rotate: int) -> None:
    """Text, rule and page boxes are in the frame of the page as shown, matching its rendering."""
    with open_document(born_digital_pdf(3, rotate=rotate)) as doc:
        for page in doc.pages():
            assert (page.width, page.height) == ((842, 595) if rotate in (90, 270) else (595, 842))
            ink = np.asarray(page.render(72).image.convert("L")) < 128
            result = process_page(page, ProcessOptions())
            words = [w for b in result.blocks for ln in b.lines for w in ln.words]
            cells = [c for b in result.blocks if b.table for c in b.table.cells]
            for box in [w.bbox for w in words] + [c.bbox for c in cells]:
                x0, y0, x1, y1 = (round(v) for v in box)
                assert ink[y0 : y1 + 1, x0 : x1 + 1].any(), box
            if page.index == 2:  # the ruled table is found in the turned frame too
                table = next(b.table for b in result.blocks if b.table)
                assert table.n_rows * table.n_cols == 12


def test_character_boxes_on_request(samples: Samples) -> None:
    plain = run(samples.data("born_digital"))
    assert all(not w.chars for b in plain.pages[0].blocks for ln in b.lines for w in ln.words)
    result = run(samples.data("born_digital"), char_boxes=True)
    words = [w for b in result.pages[0].blocks for ln in b.lines for w in ln.words]
    assert words
    for word in words:
        assert len(word.chars) == len(word.text)
        assert [c.x0 for c in word.chars] == sorted(c.x0 for c in word.chars)
        for c in word.chars:
            assert word.bbox.x0 - 0.01 <= c.x0 and c.x1 <= word.bbox.x1 + 0.01
    assert "chars" in json.loads(result.to_json())["pages"][0]["blocks"][0]["lines"][0]["words"][0]


@pytest.mark.parametrize("name", ["born_digital", "chinese_pdf", "long_pdf"])
def test_characters_read_in_one_call_equal_characters_read_one_by_one(
    samples: Samples, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text layer asks PDFium for a page's characters in one call; asking one by one (its
    fallback) gives the same result, boxes of every character included."""
    whole = unmeasured(run(samples.data(name), mode="text", char_boxes=True))
    monkeypatch.setattr(textlayer, "_all_text", lambda textpage, n: None)
    assert unmeasured(run(samples.data(name), mode="text", char_boxes=True)) == whole


def _odd_characters_pdf() -> bytes:
    """Spaces that are not ASCII (no-break, ideographic), a word of a zero-width no-break space alone, a
    control character of a broken font mapping, and several lines of mixed scripts."""
    builder = PdfBuilder()
    builder.add_page(
        [
            PdfBuilder.cjk_text(72, 100, 12, "中文\u3000全角空格 and Latin words\u00a0after a no-break space"),
            PdfBuilder.cjk_text(72, 130, 12, "alone \ufeff here 中文\ufeff字 and a bell \x07 in a line"),
            *[PdfBuilder.text(72, 160 + i * 18, 11, line) for i, line in enumerate(ENGLISH)],
        ]
    )
    return builder.build()


@pytest.mark.parametrize("name", ["born_digital", "chinese_pdf", "figure_pdf", "long_pdf", "odd_characters"])
def test_words_boxed_by_character_range_equal_words_built_character_by_character(
    samples: Samples, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without character boxes each word's box is asked of PDFium once, for its character range;
    building words from every character's box gives the same lines, words, boxes and counts."""
    data = _odd_characters_pdf() if name == "odd_characters" else samples.data(name)

    def layers() -> list[object]:
        with open_document(data) as doc:
            return [page.text_layer() for page in doc.pages()]

    by_word = layers()
    monkeypatch.setattr(
        textlayer, "_lines_by_word", lambda textpage, frame, text: textlayer._lines(textpage, frame, False, text)
    )
    assert layers() == by_word
    assert by_word and all(layer is not None for layer in by_word)


def test_character_outside_the_basic_plane_is_one_character() -> None:
    """A UCS-2 CMap shows U+20000 as two codes; PDFium reports each surrogate as a character of
    its own. They must come out as one character, and the result must encode as UTF-8."""
    builder = PdfBuilder()
    builder.add_page([PdfBuilder.cjk_text(72, 100, 12, "中文\U00020000字 and enough Latin words to be a text layer")])
    result = run(builder.build())
    page = result.pages[0]
    assert page.source == "text_layer"
    line = next(ln for b in page.blocks for ln in b.lines)
    assert line.text.startswith("中文\U00020000字")
    assert "\U00020000" in result.to_markdown()
    result.to_markdown().encode("utf-8")
    result.to_json().encode("utf-8")


def test_display_formula_in_a_text_layer_is_a_formula_block() -> None:
    builder = PdfBuilder()
    ops = [PdfBuilder.text(72, 100 + i * 18, 11, line) for i, line in enumerate(ENGLISH[:3])]
    ops.append(PdfBuilder.text(250, 170, 12, "E = m c2 + p v"))
    ops += [PdfBuilder.text(72, 200 + i * 18, 11, line) for i, line in enumerate(ENGLISH[3:])]
    builder.add_page(ops)
    page = run(builder.build()).pages[0]
    assert page.source == "text_layer"
    assert [(b.type, b.text) for b in page.blocks if b.type != "text"] == [("formula", "E = m c2 + p v")]


def test_a_slanting_watermark_is_read_first_and_leaves_the_columns_whole() -> None:
    """DRAFT in 90-point type at 45 degrees across two columns, drawn first, under the text (as
    LaTeX's draftwatermark does): its box covers both columns, so with it among the lines the
    columns were one region, read line by line straight across."""
    pdf = PdfBuilder()
    ops = ["BT /F2 90 Tf 0.7071 0.7071 -0.7071 0.7071 200 250 Tm (DRAFT) Tj ET"]
    ops += [PdfBuilder.text(60, 80 + i * 16, 10, f"Left column line {i} of the first article.") for i in range(30)]
    ops += [PdfBuilder.text(320, 80 + i * 16, 10, f"Right column line {i} of the second one.") for i in range(30)]
    pdf.add_page(ops)
    blocks = run(pdf.build(), mode="text").pages[0].blocks
    assert blocks[0].text == "DRAFT"
    text = " ".join(b.text for b in blocks[1:])
    assert text.index("Left column line 29") < text.index("Right column line 0")


def test_a_label_left_of_its_paragraphs_first_line_is_read_before_it() -> None:
    """A tax form's questions: the letter of each stands in the margin on the first line of its
    question's paragraph, drawn after the questions, its top a fraction of a point below the
    paragraph's. Blocks were sorted by their tops alone after the lines had been put in reading
    order, and every such letter came after its question ("Current nonimmigrant status ... D")."""
    questions = [
        ("D", ["Current nonimmigrant status and date of change", "(see page 29)"]),
        ("E", ["Date you entered the United States", "(see the instructions)"]),
        ("G", ["Dates you entered and left the United States during", "the year, and the country you left for"]),
    ]
    pdf = PdfBuilder()
    ops = []
    for k, (_, lines) in enumerate(questions):
        ops += [PdfBuilder.text(86, 100 + 60 * k + 11 * i, 8, line) for i, line in enumerate(lines)]
    ops += [PdfBuilder.text(74, 100.3 + 60 * k, 9, letter, "F2") for k, (letter, _) in enumerate(questions)]
    pdf.add_page(ops)
    blocks = [b.text for b in run(pdf.build(), mode="text").pages[0].blocks]
    assert blocks == [part for letter, lines in questions for part in (letter, " ".join(lines))]
