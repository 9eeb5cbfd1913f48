"""A ruled table whose horizontal rules fall between groups of records, not between every record
(a LaTeX table of commands ruled after each kind): on the text layer, each record is a row of its
own; a header whose cells wrap onto two lines stays one row.

Printed by Chromium: each record a `<tr>`, rules only above a group's first record, every cell
ruled left and right, so the grid finder sees one grid row per group.
"""

from __future__ import annotations

import pytest
from support.printed import chromium_page

from ocrqueue.documents.layout.stacked_rows import split_stacked_rows
from ocrqueue.documents.model import BBox, Table, TableCell, Word

from .helpers import run

GROUPS = [
    [("command", "\\namefield", "\\champnom")],
    [
        ("environment", "choices", "reponses"),
        ("environment", "choiceshoriz", "reponseshoriz"),
        ("environment", "choicescustom", "reponsesperso"),
    ],
    [("command", "\\correctchoice", "\\bonne"), ("command", "\\wrongchoice", "\\mauvaise")],
    [("option", "noshuffle", "ordre"), ("option", "answers", "correc"), ("option", "digits", "chiffres")],
]
HEADER = ("Kind of name", "English name", "French name")  # each cell wraps onto two lines


def _html() -> str:
    cell = "border-left:1px solid black;border-right:1px solid black;padding:2pt 8pt"
    rows = [
        '<tr style="border-top:1px solid black">'
        + "".join(f'<th style="{cell};width:40pt">{text}</th>' for text in HEADER)
        + "</tr>"
    ]
    for group in GROUPS:
        for i, record in enumerate(group):
            rule = "border-top:1px solid black" if i == 0 else ""
            rows.append(f'<tr style="{rule}">' + "".join(f'<td style="{cell}">{t}</td>' for t in record) + "</tr>")
    return (
        '<html><body style="font-family:serif;font-size:11pt;margin:1in">'
        "<p>The commands and their French equivalents.</p>"
        f'<table style="border-collapse:collapse;border-bottom:1px solid black">{"".join(rows)}</table>'
        "</body></html>"
    )


@pytest.fixture(scope="module")
def grouped_table_pdf() -> bytes:
    with chromium_page() as page:
        page.set_content(_html())
        return page.pdf(format="A5")


def test_records_between_group_rules_are_rows_of_their_own(grouped_table_pdf: bytes) -> None:
    (table,) = [b.table for b in run(grouped_table_pdf).pages[0].blocks if b.table is not None]
    rows = [tuple(row) for row in table.grid()]
    assert rows[1:] == [record for group in GROUPS for record in group]
    assert rows[0] == HEADER, "a header that wraps inside its cells is one row"


def _word(text: str, x: float, y: float) -> Word:
    return Word(text, BBox(x, y, x + 30, y + 10))


def test_cells_written_one_after_another_are_wrapped_text_not_records() -> None:
    """Two cells of two lines each, side by side: written cell by cell, they are one row."""
    cells = (TableCell(0, 0, "", BBox(0, 0, 50, 40)), TableCell(0, 1, "", BBox(50, 0, 100, 40)))
    table = Table(1, 2, cells)
    by_cell = [_word("Unit", 5, 5), _word("price", 5, 20), _word("Total", 55, 5), _word("amount", 55, 20)]
    assert split_stacked_rows(table, by_cell) == table
    by_row = [by_cell[0], by_cell[2], by_cell[1], by_cell[3]]
    assert split_stacked_rows(table, by_row).grid() == [["Unit", "Total"], ["price", "amount"]]
