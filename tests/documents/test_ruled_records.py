"""A ruled table whose rows are not ruled apart: each record a row, read by OCR (issue 22).

Slides and reports rule a table under its header and between its columns only; the grid then has
one body row whose cells hold every record of their column, and the rendered page's table came
back as two rows, the second holding each column's twelve entries run together (dev nlp2004slides
p. 22). The records are split where the cells read as records do (layout/stacked_rows.py); a row
whose cell holds a description wrapped over several lines beside a one-line name stays one row.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.stacked_rows import split_aligned_rows
from ocrqueue.documents.model import Table, TableCell, Word

from .helpers import first_page_png, printed_by_chromium, run

RECORDS = [
    ("0.972", "Harbour", "PERSON", "11"),
    ("0.938", "Quay Street", "LOCATION", "8"),
    ("0.886", "Committee", "ORGANIZATION", "54"),
    ("0.848", "Portsmouth", "LOCATION", "4"),
    ("0.808", "Greenwich", "LOCATION", "10"),
    ("0.763", "Sato Masahisa", "PERSON", "10"),
]
CELL = "border-left:2px solid #000;border-right:2px solid #000;padding:2px 14px;white-space:nowrap"
TABLE = (
    '<table style="border-collapse:collapse;border:2px solid #000;font-size:20pt;margin:1in">'
    + '<tr style="border-bottom:2px solid #000">'
    + "".join(f"<th style={CELL!r}>{h}</th>" for h in ("Score", "Word", "Kind", "Count"))
    + "</tr>"
    + "".join(f"<tr>{''.join(f'<td style={CELL!r}>{v}</td>' for v in record)}</tr>" for record in RECORDS)
    + "</table>"
)
PAGE = f'<html><body style="font-family:sans-serif">{TABLE}</body></html>'


@pytest.fixture(scope="module")
def rendered() -> bytes:
    return first_page_png(printed_by_chromium({"page": PAGE})["page"], 200)


def test_each_record_of_a_table_ruled_only_between_columns_is_a_row(rendered: bytes) -> None:
    """Before: two rows, the second "0.972 0.938 0.886 ..." in its first cell."""
    (table,) = [b.table for b in run(rendered).pages[0].blocks if b.table is not None]
    grid = table.grid()
    assert len(grid) == 1 + len(RECORDS)
    assert [row[0] for row in grid[1:]] == [r[0] for r in RECORDS]
    assert [row[3] for row in grid[1:]] == [r[3] for r in RECORDS]
    assert grid[3][2] == "ORGANIZATION"


def _words(texts: list[str], x: float, top: float, pitch: float = 14.0) -> list[Word]:
    return [
        Word(t, BBox(x, top + i * pitch, x + 8.0 * len(t), top + i * pitch + 10.0), 0.9) for i, t in enumerate(texts)
    ]


def _one_row(*columns: tuple[float, float]) -> Table:
    return Table(
        1,
        len(columns),
        tuple(TableCell(0, c, "", BBox(x0, 0.0, x1, 200.0)) for c, (x0, x1) in enumerate(columns)),
    )


def test_a_name_beside_its_wrapped_description_stays_one_row() -> None:
    table = _one_row((0.0, 100.0), (100.0, 400.0))
    description = [
        "The board reviews the records of",
        "the applicant and may ask for more",
        "documents before it decides on it.",
    ]
    words = _words(["Harbour Clinic"], 5.0, 10.0) + _words(description, 105.0, 10.0)
    assert split_aligned_rows(table, words) is table


def test_records_with_a_cell_left_blank_keep_their_places() -> None:
    table = _one_row((0.0, 60.0), (60.0, 160.0), (160.0, 260.0))
    words = (
        _words(["1.000", "0.972", "0.938", "0.886"], 5.0, 10.0)
        + _words(["Yuta", "Kanda", "Tabata", "Murayama"], 65.0, 10.0)
        + [w for i, w in enumerate(_words(["PERSON", "-", "PERSON", "PERSON"], 165.0, 10.0)) if i != 1]
    )
    grid = split_aligned_rows(table, words).grid()
    assert grid == [
        ["1.000", "Yuta", "PERSON"],
        ["0.972", "Kanda", ""],
        ["0.938", "Tabata", "PERSON"],
        ["0.886", "Murayama", "PERSON"],
    ]
