"""Result JSON (schema, round trip, assembly) and Markdown rendering."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ocrqueue.documents import (
    Block,
    DocumentMeta,
    DocumentResult,
    PageResult,
    Table,
    TableCell,
    assemble,
)
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.output.markdown import table_markdown

from .conftest import Samples
from .helpers import run

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs/schema/document.schema.json").read_text())


@pytest.mark.parametrize("name", ["born_digital", "table", "mixed", "figure_pdf"])
def test_json_validates_against_published_schema(samples: Samples, name: str) -> None:
    result = run(samples.data(name), languages=("eng", "chi_sim"), char_boxes=True)
    document = json.loads(result.to_json())
    jsonschema.validate(document, SCHEMA)
    assert document["schema_version"] == SCHEMA["properties"]["schema_version"]["const"]


def test_schema_rejects_a_wrong_document() -> None:
    bad = {"schema_version": "1.0", "document": {}, "pages": [{"index": -1}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


def test_page_results_round_trip_and_assemble_out_of_order(samples: Samples) -> None:
    result = run(samples.data("born_digital"))
    restored = [PageResult.from_dict(json.loads(json.dumps(p.to_dict()))) for p in reversed(result.pages)]
    # The dict is the contract (boxes rounded to 1/100 point): it must survive a round trip unchanged.
    assert [p.to_dict() for p in sorted(restored, key=lambda p: p.index)] == [p.to_dict() for p in result.pages]
    again = assemble(result.meta, restored)
    assert again.to_json() == result.to_json()
    assert again.to_markdown() == result.to_markdown()
    assert DocumentResult.from_dict(result.to_dict()).to_dict() == result.to_dict()


def test_assemble_requires_every_page_once(samples: Samples) -> None:
    result = run(samples.data("born_digital"))
    with pytest.raises(ValueError, match="missing \\[1\\]"):
        assemble(result.meta, [result.pages[0], result.pages[2]])
    with pytest.raises(ValueError):
        assemble(result.meta, [*result.pages, result.pages[0]])


def test_figure_crops_are_returned_as_bytes() -> None:
    page = PageResult(
        0,
        100,
        100,
        "tesseract",
        (Block("figure", BBox(0, 0, 50, 50), "", image="page1-figure1.png"),),
        images={"page1-figure1.png": b"\x89PNG..."},
    )
    result = assemble(DocumentMeta("png", "image/png", 1, 10), [page])
    assert result.images == {"page1-figure1.png": b"\x89PNG..."}
    assert "![figure](page1-figure1.png)" in result.to_markdown()
    assert "images" not in page.to_dict()


def test_formula_with_latex_becomes_display_math() -> None:
    page = PageResult(0, 100, 100, "vlm", (Block("formula", BBox(0, 0, 50, 10), "E = mc2", latex="E = mc^2"),))
    assert "$$\nE = mc^2\n$$" in assemble(DocumentMeta("png", "image/png", 1, 10), [page]).to_markdown()


def _cell(r: int, c: int, text: str, rs: int = 1, cs: int = 1) -> TableCell:
    return TableCell(r, c, text, BBox(c, r, c + cs, r + rs), rs, cs)


def test_simple_table_is_a_pipe_table_and_escapes_pipes() -> None:
    table = Table(2, 2, (_cell(0, 0, "a|b"), _cell(0, 1, "<i>"), _cell(1, 0, "1"), _cell(1, 1, "2")))
    assert table_markdown(table) == "| a\\|b | &lt;i> |\n|---|---|\n| 1 | 2 |"


def test_spanning_table_is_html_with_spans_and_escaped_text() -> None:
    table = Table(2, 2, (_cell(0, 0, "Head <x>", cs=2), _cell(1, 0, "1"), _cell(1, 1, "2")))
    html = table_markdown(table)
    assert '<td colspan="2">Head &lt;x&gt;</td>' in html
    assert html.startswith("<table>") and html.count("<tr>") == 2
