"""Rendered pages through Tesseract: accuracy, reading order, tables, raster formats."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from generate import ENGLISH, LEFT_COLUMN, PAGE_FOOTER, PAGE_HEADER, RIGHT_COLUMN, TABLE
from metrics import cer, page_text, table_cell_accuracy

from ocrqueue.documents import (
    DocumentError,
    ProcessOptions,
    RecognitionRequest,
    get_engine,
    open_document,
)

from .conftest import Samples
from .helpers import run, unmeasured

LIMITS = {
    "english": 0.005,
    "chinese": 0.02,
    "mixed": 0.03,
    "two_column": 0.01,
    "english_scan": 0.02,
    "chinese_scan": 0.04,
    "mixed_scan": 0.05,
    "english_webp": 0.005,
}


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_character_error_rate(samples: Samples, name: str) -> None:
    sample = samples[name]
    page = run(samples.data(name), engine="tesseract", languages=tuple(sample.language.split("+"))).pages[0]
    assert page.source == "tesseract"
    assert cer("\n".join(sample.text), page_text(page)) < LIMITS[name]


@pytest.mark.parametrize("name", ["two_column", "two_column_scan"])
def test_two_column_reading_order(samples: Samples, name: str) -> None:
    text = page_text(run(samples.data(name)).pages[0])
    positions = [text.find(s.split()[0]) for s in LEFT_COLUMN + RIGHT_COLUMN]
    assert -1 not in positions
    assert positions == sorted(positions)


@pytest.mark.parametrize("name", ["table", "table_scan"])
def test_ruled_table_cells(samples: Samples, name: str) -> None:
    page = run(samples.data(name)).pages[0]
    assert table_cell_accuracy(TABLE, page) >= 0.9
    table = next(b.table for b in page.blocks if b.table is not None)
    assert (table.n_rows, table.n_cols) == (4, 3)
    assert [b.type for b in page.blocks][:2] == ["caption", "table"]


def test_every_tiff_frame_is_read(samples: Samples) -> None:
    result = run(samples.data("multipage_tiff"), languages=("eng", "chi_sim"))
    assert len(result.pages) == 2
    assert "Supplier Invoices" in page_text(result.pages[0])
    assert "股东大会" in page_text(result.pages[1])


def test_boxes_are_points_from_image_dpi(samples: Samples) -> None:
    page = run(samples.data("english")).pages[0]
    assert page.width == pytest.approx(1654 * 72 / 200, abs=0.5)
    title = page.blocks[0]
    assert title.type == "title"
    # Drawn at pixel (150, 150) of a 200 dpi image: 54 points from the top-left corner.
    assert title.bbox.x0 == pytest.approx(54, abs=3)
    assert title.bbox.y0 == pytest.approx(54, abs=6)


def test_engine_choice_and_language_errors(samples: Samples) -> None:
    with pytest.raises(DocumentError) as info:
        run(samples.data("english"), engine="nope")
    assert info.value.code == "unknown_engine"
    with pytest.raises(DocumentError) as info:
        run(samples.data("english"), languages=("fra",))
    assert info.value.code == "invalid_options"
    assert "fra" in str(info.value)
    with pytest.raises(DocumentError):
        ProcessOptions(mode="fast")  # type: ignore[arg-type]


def test_engine_is_shared_and_thread_safe(samples: Samples) -> None:
    engine = get_engine("tesseract")
    assert get_engine("tesseract") is engine
    with open_document(samples.data("english")) as doc:
        pages = doc.pages()
        image = next(pages).render(200).image
    crop = image.crop((100, 100, 1400, 650))
    request = RecognitionRequest(("eng",))
    results: list[str] = []

    def work() -> None:
        for _ in range(3):
            results.append(" ".join(ln.text for ln in engine.recognize(crop, request).lines))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 9
    assert len(set(results)) == 1
    assert "Supplier Invoices" in results[0]


def test_spanning_cells_are_found_and_rendered_as_html(samples: Samples) -> None:
    page = run(samples.data("span_table")).pages[0]
    table = next(b.table for b in page.blocks if b.table is not None)
    spans = {(c.row, c.col): (c.row_span, c.col_span) for c in table.cells if c.row_span > 1 or c.col_span > 1}
    assert spans == {(0, 0): (1, 2), (2, 2): (2, 1)}
    assert table_cell_accuracy(samples["span_table"].table, page) == 1.0
    html = run(samples.data("span_table")).to_markdown()
    assert '<td colspan="2">Fruit</td>' in html
    assert '<td rowspan="2">4.20</td>' in html


@pytest.mark.parametrize("layout_model", [True, False])
def test_figure_is_cropped_and_placed_before_its_caption(samples: Samples, layout_model: bool) -> None:
    result = run(samples.data("figure"), layout_model=layout_model)
    page = result.pages[0]
    kinds = [b.type for b in page.blocks]
    assert "table" not in kinds  # the chart's frame and bars are not a ruled table
    figure = page.blocks[kinds.index("figure")]
    assert figure.image in page.images
    assert page.images[figure.image].startswith(b"\x89PNG")
    assert kinds[kinds.index("figure") + 1] == "caption"
    assert page.blocks[kinds.index("figure") + 1].text == "Figure 1: Sales by quarter"
    assert f"![figure]({figure.image})" in result.to_markdown()
    assert cer("\n".join(samples["figure"].text), page_text(page)) < 0.01


def test_speckled_margin_is_not_a_figure(samples: Samples) -> None:
    page = run(samples.data("two_column_scan")).pages[0]
    assert not page.images
    assert "figure" not in [b.type for b in page.blocks]


@pytest.mark.parametrize("name", ["two_column", "two_column_scan"])
def test_running_header_and_footer_on_rendered_pages(samples: Samples, name: str) -> None:
    result = run(samples.data(name))
    blocks = result.pages[0].blocks
    assert blocks[0].type == "header" and cer(PAGE_HEADER, blocks[0].text) < 0.15
    assert blocks[-1].type == "footer" and cer(PAGE_FOOTER, blocks[-1].text) < 0.15
    assert PAGE_HEADER not in result.to_markdown()
    assert "Page 7" in result.to_markdown(include_headers=True)


def test_rapidocr_engine_reads_mixed_chinese_and_english(samples: Samples) -> None:
    pytest.importorskip("rapidocr")
    page = run(samples.data("mixed"), engine="rapidocr").pages[0]
    assert page.source == "rapidocr"
    assert cer("\n".join(samples["mixed"].text), page_text(page)) < 0.03


def test_documents_processed_in_parallel_threads_match_sequential(samples: Samples) -> None:
    names = ["born_digital", "scanned_pdf", "table", "born_digital"]
    expected = {n: unmeasured(run(samples.data(n))) for n in set(names)}
    got: dict[int, dict[str, Any]] = {}

    def work(i: int) -> None:
        got[i] = unmeasured(run(samples.data(names[i])))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(names))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(names))] == [expected[n] for n in names]


def test_table_without_column_rules_found_by_layout_model(samples: Samples) -> None:
    sample = samples["unruled_table"]
    result = run(samples.data("unruled_table"))
    page = result.pages[0]
    assert [b.type for b in page.blocks] == ["text", "caption", "table", "text"]
    assert table_cell_accuracy(sample.table, page) == 1.0
    assert "| Quinces | 4 | 6.10 |" in result.to_markdown()
    assert cer("\n".join(sample.text), page_text(page)) < 0.01


def test_display_formula_between_paragraphs_is_a_formula_block(samples: Samples) -> None:
    """A classic engine gives no LaTeX and the layout model takes a one-line formula for a title
    or text: the formula is found by its place (set apart, centred) and its relation sign."""
    page = run(samples.data("formula"), languages=("eng",)).pages[0]
    kinds = [b.type for b in page.blocks]
    assert kinds.count("formula") == 1 and set(kinds) == {"text", "formula"}, [(b.type, b.text) for b in page.blocks]
    at = kinds.index("formula")
    assert "=" in page.blocks[at].text
    assert cer(ENGLISH[2], page.blocks[at - 1].text) < 0.02
    assert cer(ENGLISH[3], page.blocks[at + 1].text) < 0.02
