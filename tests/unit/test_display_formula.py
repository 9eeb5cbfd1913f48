"""The display-formula rule of layout/blocks.py on synthetic lines (points, top-left origin)."""

from __future__ import annotations

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import build_blocks
from ocrqueue.documents.model import Line

BODY = 11.0


def _line(text: str, x0: float, x1: float, y0: float) -> Line:
    return Line(text, BBox(x0, y0, x1, y0 + BODY), 1.0, (), BODY)


def _page(middle: Line) -> list[str]:
    lines = [
        _line("Invoices must be submitted within thirty days of delivery.", 72, 520, 100),
        _line("Each invoice lists the order number and the unit price.", 72, 500, 118),
        middle,
        _line("Payments are made by bank transfer to the named account.", 72, 510, 175),
    ]
    return [b.type for b in build_blocks(lines, 842, BODY)]


@pytest.mark.parametrize("text", ["a² + b² = c²", "E = mc2", "f(x) ≤ g(x) + 1", "x < 2y"])
def test_centred_relation_set_apart_is_a_formula(text: str) -> None:
    assert _page(_line(text, 240, 350, 147)) == ["text", "formula", "text"]


@pytest.mark.parametrize(
    ("text", "x0", "x1"),
    [
        ("a² + b² = c²", 72, 180),  # flush left: a line of text, not display maths
        ("a² + b² = c²", 380, 500),  # pushed to the right
        ("Quarterly Results", 230, 360),  # centred but no relation: a heading or plain text
        ("where the total amount = quantity times price", 120, 470),  # prose with a relation
    ],
)
def test_other_lines_are_not_formulas(text: str, x0: float, x1: float) -> None:
    assert "formula" not in _page(_line(text, x0, x1, 147))


def test_a_column_of_one_line_has_nothing_to_be_centred_in() -> None:
    assert [b.type for b in build_blocks([_line("E = mc2", 240, 350, 140)], 842, BODY)] == ["text"]
