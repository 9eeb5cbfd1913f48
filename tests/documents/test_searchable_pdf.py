"""The searchable PDF: PDFium reads back our text, word by word on the OCR boxes, and qpdf finds it valid."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from data.generate import ENGLISH, PdfBuilder, scanned, scanned_pdf, text_page
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageStat

from documents.conftest import Samples
from documents.helpers import run
from ocrqueue.documents import DocumentResult, PageResult, ProcessOptions, open_document, process_page
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.pdfframe import PageFrame
from ocrqueue.documents.model import Block, Line, Word
from ocrqueue.documents.output.glyphless_font import encode_text
from ocrqueue.documents.output.pdf_text_spans import page_lines
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf

OCR_SAMPLES = [
    "english",
    "english_scan",
    "chinese",
    "chinese_scan",
    "mixed",
    "two_column",
    "table",
    "figure",
    "multipage_tiff",
    "scanned_pdf",
]
BOX_TOLERANCE = 2.0  # points
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def normalised(text: str) -> str:
    """Whitespace runs as one space, and none next to a CJK character (it means nothing there)."""
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(rf"\s*({CJK.pattern})\s*", r"\1", text)


def recognised(page: PageResult) -> str:
    """The page's text as recognised: its lines (a list item's with its bullet), or the block's text."""
    parts: list[str] = []
    for block in page.blocks:
        parts.extend([line.text for line in block.lines] if block.lines else [block.text])
    return normalised(" ".join(parts))


def expected(data: bytes, number: int, page: PageResult) -> str:
    """What the searchable page should give back: the source page's own text, if any (e.g. a scan's
    page number, kept as it was), then ours."""
    own = char_boxes(pdfium.PdfDocument(data)[number])[0] if data.startswith(b"%PDF") else ""
    return normalised(own + " " + recognised(page))


def searchable(data: bytes, result: DocumentResult) -> bytes:
    out = io.BytesIO()
    write_searchable_pdf(data, result.pages, out)
    return out.getvalue()


def qpdf_check(pdf: bytes, tmp_path: Path) -> None:
    if shutil.which("qpdf") is None:
        pytest.fail("qpdf is missing: scripts/system-deps.sh test")
    path = tmp_path / "out.pdf"
    path.write_bytes(pdf)
    checked = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def char_boxes(page: pdfium.PdfPage) -> tuple[str, list[tuple[float, float, float, float]]]:
    textpage = page.get_textpage()
    count = textpage.count_chars()
    return textpage.get_text_range(0, count), [textpage.get_charbox(i) for i in range(count)]


@pytest.mark.parametrize("name", OCR_SAMPLES)
def test_text_comes_back_on_the_boxes_and_qpdf_accepts_it(samples: Samples, name: str, tmp_path: Path) -> None:
    sample = samples[name]
    data = samples.data(name)
    result = run(data, languages=tuple(sample.language.split("+")), mode="ocr")
    pdf = searchable(data, result)
    qpdf_check(pdf, tmp_path)
    document = pdfium.PdfDocument(pdf)
    assert len(document) == len(result.pages)
    for number, page_result in enumerate(result.pages):
        page = document[number]
        assert page.get_size() == pytest.approx((page_result.width, page_result.height), abs=0.01)
        text, boxes = char_boxes(page)
        assert normalised(text) == expected(data, number, page_result)
        assert recognised(page_result), f"{name}: nothing recognised on page {number + 1}"
        _assert_spans_on_their_boxes(page_result, text, boxes)


def _assert_spans_on_their_boxes(
    page: PageResult, text: str, boxes: list[tuple[float, float, float, float]], rotation: int = 0
) -> None:
    """Each span's characters, found in reading order in the extracted text, cover its box (PDFium
    gives char boxes in the unrotated page's space: they are turned as the reader sees the page)."""
    user_width, user_height = (page.height, page.width) if rotation in (90, 270) else (page.width, page.height)
    frame = PageFrame(BBox(0, 0, user_width, user_height), rotation)
    cursor = 0
    checked = 0
    for line in page_lines(page):
        for span in line:
            if span.text.isspace():
                continue
            found = text.find(span.text, cursor)
            assert found >= 0, f"{span.text!r} not found after position {cursor}"
            cursor = found + len(span.text)
            shown = [frame.box(*b) for b in boxes[found:cursor]]
            assert min(b.x0 for b in shown) == pytest.approx(span.box.x0, abs=BOX_TOLERANCE), span
            assert max(b.x1 for b in shown) == pytest.approx(span.box.x1, abs=BOX_TOLERANCE), span
            assert min(b.y0 for b in shown) == pytest.approx(span.line_box.y0, abs=BOX_TOLERANCE), span
            assert max(b.y1 for b in shown) == pytest.approx(span.line_box.y1, abs=BOX_TOLERANCE), span
            checked += 1
    assert checked > 0


def test_each_english_word_is_its_own_span_on_its_ocr_box(samples: Samples) -> None:
    result = run(samples.data("english_scan"), languages=("eng",), mode="ocr")
    words = [w for block in result.pages[0].blocks for line in block.lines for w in line.words]
    spans = [s for line in page_lines(result.pages[0]) for s in line if not s.text.isspace()]
    assert [(s.text, s.box) for s in spans] == [(w.text, w.bbox) for w in words]


def test_born_digital_pages_are_copied_unchanged_without_a_second_layer(samples: Samples, tmp_path: Path) -> None:
    data = samples.data("born_digital")
    result = run(data)
    assert {p.source for p in result.pages} == {"text_layer"}
    pdf = searchable(data, result)
    qpdf_check(pdf, tmp_path)
    original, produced = pdfium.PdfDocument(data), pdfium.PdfDocument(pdf)
    for number in range(len(original)):
        assert char_boxes(produced[number]) == char_boxes(original[number])
    with pikepdf.open(io.BytesIO(pdf)) as written:
        assert b" 3 Tr" not in written.pages[0].Contents.read_bytes()


def test_a_scan_keeps_its_own_text_and_our_words_are_not_laid_over_it(tmp_path: Path) -> None:
    """A scanned page with a stamp that is real text: the page is kept as it is (same image, no
    re-encoding), the stamp stays its own text, and our reading of the stamp is not added again."""
    stamp = "APPROVED"
    pdf = PdfBuilder()
    pdf.add_page([PdfBuilder.text(380, 760, 28, stamp)], jpeg=scanned(text_page(ENGLISH, cjk=False), seed=3))
    data = pdf.build()
    result = run(data, languages=("eng",))
    assert stamp in recognised(result.pages[0])  # OCR read the stamp too
    produced = searchable(data, result)
    qpdf_check(produced, tmp_path)
    text = normalised(char_boxes(pdfium.PdfDocument(produced)[0])[0])
    assert text.count(stamp) == 1 and ENGLISH[0] in text
    with pikepdf.open(io.BytesIO(data)) as before, pikepdf.open(io.BytesIO(produced)) as after:
        (image_before,) = before.pages[0].Resources.XObject.values()
        (image_after,) = after.pages[0].Resources.XObject.values()
        assert image_after.read_raw_bytes() == image_before.read_raw_bytes()


def test_the_same_reading_gives_the_same_pdf_byte_for_byte() -> None:
    """A scanned PDF page gets our font beside its own under a fixed name (`/OQ1` past its fonts) and a
    document id computed from the content, so the same input and reading give the same file."""
    pdf = PdfBuilder()
    pdf.add_page([PdfBuilder.text(380, 760, 28, "APPROVED")], jpeg=scanned(text_page(ENGLISH, cjk=False), seed=3))
    data = pdf.build()
    result = run(data, languages=("eng",))
    first, second = searchable(data, result), searchable(data, result)
    assert first == second
    with pikepdf.open(io.BytesIO(first)) as produced:
        fonts = set(produced.pages[0].Resources.Font.keys())
    assert "/OQ1" in fonts


def test_a_broken_text_layer_is_replaced_not_doubled(samples: Samples) -> None:
    """Forced OCR of a page that has text: the page becomes its image plus our text, once."""
    data = samples.data("born_digital")
    result = run(data, mode="ocr", languages=("eng",))
    pdf = pdfium.PdfDocument(searchable(data, result))
    for number, page_result in enumerate(result.pages):
        text, _ = char_boxes(pdf[number])
        assert normalised(text) == recognised(page_result)
        assert normalised(text).count("Supplier Invoices") <= 1


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_text_lands_on_the_words_of_a_rotated_scanned_page(rotation: int) -> None:
    """A scan stored turned and shown upright by /Rotate: the layer is drawn through the inverse turn."""
    stored = text_page(ENGLISH, cjk=False).rotate(rotation, expand=True)
    source = pikepdf.open(io.BytesIO(scanned_pdf(stored)))
    source.pages[0].obj.Rotate = rotation
    buffer = io.BytesIO()
    source.save(buffer)
    data = buffer.getvalue()
    result = run(data, languages=("eng",))
    assert ENGLISH[0] in recognised(result.pages[0])
    pdf = pdfium.PdfDocument(searchable(data, result))
    text, boxes = char_boxes(pdf[0])
    assert normalised(text) == expected(data, 0, result.pages[0])
    assert pdf[0].get_rotation() == rotation  # the original page, kept
    _assert_spans_on_their_boxes(result.pages[0], text, boxes, rotation)


def test_resources_inherited_from_the_page_tree_are_kept(samples: Samples) -> None:
    """A page whose image is named in its parent's /Resources still shows it once our font is added."""
    source = pikepdf.open(io.BytesIO(samples.data("scanned_pdf")))
    page = source.pages[0].obj
    source.Root.Pages.Resources = page.Resources
    del page["/Resources"]
    buffer = io.BytesIO()
    source.save(buffer)
    data = buffer.getvalue()
    result = run(data, languages=("eng",))
    produced = pdfium.PdfDocument(searchable(data, result))
    assert normalised(char_boxes(produced[0])[0]) == expected(data, 0, result.pages[0])
    original = pdfium.PdfDocument(data)[0].render(scale=0.25).to_pil().convert("L")
    rendered = produced[0].render(scale=0.25).to_pil().convert("L")
    # The scan looks as before (PDFium resamples a few edge pixels differently) and no text shows.
    assert ImageStat.Stat(ImageChops.difference(rendered, original)).mean[0] < 0.5
    assert original.getextrema()[0] < 100  # there is ink to compare


def test_pages_spill_to_disk_in_batches_and_keep_their_order(
    samples: Samples, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import ocrqueue.documents.output.searchable_pdf as writer

    monkeypatch.setattr(writer, "_BATCH_BYTES", 1)
    data = samples.data("multipage_tiff")
    result = run(data, languages=("eng", "chi_sim"), mode="ocr")
    pdf = searchable(data, result)
    qpdf_check(pdf, tmp_path)
    document = pdfium.PdfDocument(pdf)
    for number, page_result in enumerate(result.pages):
        assert normalised(char_boxes(document[number])[0]) == recognised(page_result)


def test_results_that_do_not_match_the_document_are_refused(samples: Samples) -> None:
    data = samples.data("multipage_tiff")
    opts = ProcessOptions(languages=("eng",), mode="ocr")
    with open_document(data) as document:
        first = process_page(next(document.pages()), opts)
    with pytest.raises(ValueError, match="no page result for page 2"):
        write_searchable_pdf(data, [first], io.BytesIO())


# Right-to-left and explicit bidi characters are left out: PDFium reorders what it copies by its own
# rules, so a word such as "0\u05c6" comes back as "\u05c60". Right-to-left lines have their own
# tests (test_right_to_left.py: drawn as a producer draws them, they copy back in logical order).
# Unassigned code points and noncharacters (Cn: U+FFFE, which PDFium drops) never reach a page
# result: text cleaning removes them (documents/text.py).
_RIGHT_TO_LEFT = {"R", "AL", "AN", "RLE", "RLO", "RLI", "LRE", "LRO", "LRI", "PDF", "PDI", "FSI"}
_characters = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cn", "Zl", "Zp")).filter(
    lambda c: unicodedata.bidirectional(c) not in _RIGHT_TO_LEFT
)
_text = st.text(_characters, min_size=1, max_size=12)


@settings(deadline=None, max_examples=60)
@given(st.lists(_text.filter(lambda t: t.strip() == t and " " not in t and t.strip()), min_size=1, max_size=6))
def test_any_words_of_a_line_come_back_as_the_line(words: list[str]) -> None:
    """Property: whatever the words, PDFium extracts the line we wrote (non-BMP characters as U+FFFD)."""
    boxes = [BBox(50 + 60 * i, 100, 100 + 60 * i, 112) for i in range(len(words))]
    line = Line(" ".join(words), BBox(50, 100, boxes[-1].x1, 112), None, tuple(map(Word, words, boxes)))
    page = PageResult(0, 600, 800, "tesseract", (Block("text", line.bbox, line.text, lines=(line,)),), 200)
    out = io.BytesIO()
    write_searchable_pdf(_white_page_png(), [page], out)
    text, _ = char_boxes(pdfium.PdfDocument(out.getvalue())[0])
    expected = encode_text(line.text).decode("utf-16-be")
    assert re.sub(r"\s+", " ", text).strip() == re.sub(r"\s+", " ", expected).strip()


def _white_page_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (600, 800), 255).save(buffer, "PNG", dpi=(72, 72))
    return buffer.getvalue()
