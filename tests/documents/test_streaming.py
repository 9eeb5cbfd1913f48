"""Results written page by page (the same bytes as built whole), page selections, and documents
opened from a path instead of bytes."""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from generate import born_digital_pdf
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents import (
    Document,
    DocumentMeta,
    PageRangeError,
    PageResult,
    PageSelection,
    ProcessOptions,
    ResultWriter,
    assemble,
    count_pages,
    open_document,
    process_page,
)
from ocrqueue.documents.output import reader
from ocrqueue.documents.output.markdown import page_markdown_parts
from ocrqueue.service.results import link_figures, linked_markdown

from .conftest import Samples
from .helpers import run, unmeasured


def _written(meta: DocumentMeta, pages: list[PageResult], indent: int | None) -> tuple[str, str]:
    json_out, markdown_out = io.BytesIO(), io.BytesIO()
    with ResultWriter(meta, json_out, markdown_out, indent=indent, expected=[p.index for p in pages]) as writer:
        for page in pages:
            writer.add(page)
    return json_out.getvalue().decode(), markdown_out.getvalue().decode()


@pytest.mark.parametrize("name", ["born_digital", "table", "mixed"])
@pytest.mark.parametrize("indent", [None, 2])
def test_streamed_result_is_byte_for_byte_the_whole_one(samples: Samples, name: str, indent: int | None) -> None:
    result = run(samples.data(name), languages=("eng", "chi_sim"))
    json_text, markdown = _written(result.meta, list(result.pages), indent)
    assert json_text == json.dumps(result.to_dict(), ensure_ascii=False, indent=indent)
    paragraphs = [part for page in result.pages for part in page_markdown_parts(page)]
    assert markdown == "\n\n".join(paragraphs) + "\n"


def test_a_selection_holds_only_its_pages_and_says_so() -> None:
    data = born_digital_pdf(6)
    with open_document(data) as document:
        meta = dataclasses.replace(document.meta, pages="2-3,5")
        options = ProcessOptions(pages="5,2-3")
        wanted = options.page_indices(meta.page_count)
        pages = _pages(document, wanted, options)
    json_text, _ = _written(meta, pages, None)
    result = json.loads(json_text)
    assert result["document"]["pages"] == "2-3,5" and result["document"]["page_count"] == 6
    assert [p["index"] for p in result["pages"]] == [1, 2, 4]
    assert assemble(meta, pages).pages == tuple(pages)
    with pytest.raises(ValueError, match="missing"):
        assemble(meta, pages[:2])


def _pages(document: Document, wanted: Iterable[int], options: ProcessOptions) -> list[PageResult]:
    return [process_page(page, options) for page in document.select(wanted)]


def test_an_incomplete_or_disordered_stream_is_refused() -> None:
    result = run(born_digital_pdf(3))
    with pytest.raises(ValueError, match="out of order"):
        _written(result.meta, [result.pages[1], result.pages[0]], None)
    with pytest.raises(ValueError, match="missing"):
        writer = ResultWriter(result.meta, io.BytesIO(), io.BytesIO(), expected=[0, 1, 2])
        writer.add(result.pages[0])
        writer.close()


def test_a_path_opens_like_its_bytes(tmp_path: Path, samples: Samples) -> None:
    for name in ("born_digital", "mixed"):
        path = tmp_path / name
        path.write_bytes(samples.data(name))
        with open_document(path) as document:
            from_path = assemble(document.meta, _pages(document, range(document.page_count), ProcessOptions()))
        assert unmeasured(from_path) == unmeasured(run(samples.data(name)))
        assert count_pages(path) == from_path.meta.page_count


@pytest.mark.parametrize(
    ("text", "canonical", "indices"),
    [("1-5,9", "1-5,9", [0, 1, 2, 3, 4, 8]), (" 9 , 1 - 2,2-3", "1-3,9", [0, 1, 2, 8]), ("4", "4", [3])],
)
def test_page_selections_parse_to_a_canonical_form(text: str, canonical: str, indices: list[int]) -> None:
    selection = PageSelection.parse(text)
    assert str(selection) == canonical
    assert selection.indices(9) == indices


@pytest.mark.parametrize("text", ["", "0", "3-1", "1-", "a", "1;2", "1,,2", "-3", "1.5", "1-2-3", "9" * 8])
def test_malformed_selections_are_refused(text: str) -> None:
    with pytest.raises(PageRangeError, match="pages"):
        PageSelection.parse(text)


def test_a_selection_past_the_last_page_names_it() -> None:
    with pytest.raises(PageRangeError, match="page 12, but the document has 10"):
        PageSelection.parse("1-3,12").indices(10)


@given(st.sets(st.integers(1, 300), min_size=1))
def test_any_set_of_pages_round_trips(pages: set[int]) -> None:
    text = ",".join(str(p) for p in sorted(pages, reverse=True))
    selection = PageSelection.parse(text)
    assert [i + 1 for i in selection.indices(300)] == sorted(pages)
    assert PageSelection.parse(str(selection)) == selection
    assert PageSelection.of_indices(selection.indices(300)) == selection
    assert len(selection) == len(pages)


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_result_pages_read_back_a_page_at_a_time(
    samples: Samples, indent: int | None, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "_CHUNK", chunk)  # values and characters cut across chunk ends
    result = run(samples.data("mixed"), languages=("eng", "chi_sim"))
    json_text, _ = _written(result.meta, list(result.pages), indent)
    pages = list(reader.iter_result_pages(io.BytesIO(json_text.encode())))
    assert [p.to_dict() for p in pages] == [p.to_dict() for p in result.pages]


@given(
    st.lists(st.sampled_from(["a", "é", "漢", "\n", "![x](f.png)", "![y](g.jpg)\n"]), max_size=40), st.integers(1, 9)
)
def test_figure_links_are_rewritten_the_same_over_any_chunking(parts: list[str], size: int) -> None:
    markdown = "".join(parts).encode()
    chunks = iter([markdown[i : i + size] for i in range(0, len(markdown), size)])
    streamed = b"".join(linked_markdown(chunks, "assets/imgs/")).decode()
    assert streamed == link_figures(markdown.decode(), "assets/imgs/")
