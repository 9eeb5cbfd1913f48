"""A spreadsheet printed to PDF: no rules, figures right-aligned a space apart, a header whose
names stand closer than the columns' gap. XY-cut alone cut it into slices (the first column read
down, the header with one record, the numbers a few rows at a time); it is one table, a row per
record and a column per figure (layout/row_grid.py)."""

from __future__ import annotations

import random

import pytest
from support.printed import chromium_page

from .helpers import run

HEADER = ("Item", "Region", "Units", "Price", "Revenue", "Margin %")
NAMES = ("Office chair", "Desk", "Lamp", "Paper", "Stapler heavy", "Monitor", "Printer ink", "Keyboard wireless")


def _records() -> list[tuple[str, ...]]:
    rng = random.Random(7)
    records = []
    for _ in range(24):
        units, price = rng.randint(1, 500), rng.randint(100, 250000) / 100
        region = rng.choice(["North", "South", "East", "West"])
        margin = f"{rng.randint(1, 60)}.{rng.randint(0, 9)}"
        records.append((rng.choice(NAMES), region, str(units), f"{price:.2f}", f"{units * price:.2f}", margin))
    return records


RECORDS = _records()


@pytest.fixture(scope="module")
def sheet_pdf() -> bytes:
    figure = ' style="text-align:right;padding:0 1pt"'
    name = ' style="padding:0 14pt 0 1pt"'
    rows = "".join(
        "<tr>" + "".join(f"<td{figure if c >= 2 else name}>{v}</td>" for c, v in enumerate(r)) + "</tr>"
        for r in [HEADER, *RECORDS]
    )
    with chromium_page() as page:
        page.set_content(
            "<html><body style=\"font-family:'DejaVu Sans';font-size:9pt;margin:0.8in\">"
            "<p style='text-align:center'>sheet</p>"
            f"<table style='border-collapse:collapse'>{rows}</table></body></html>"
        )
        return page.pdf(format="A4")


def test_a_printed_spreadsheet_is_one_table_a_row_per_record(sheet_pdf: bytes) -> None:
    blocks = run(sheet_pdf).pages[0].blocks
    (table,) = [b.table for b in blocks if b.table is not None]
    assert [tuple(row) for row in table.grid()] == [HEADER, *RECORDS]
    assert [b.text for b in blocks if b.table is None] == ["sheet"]
