"""Paragraphs on the text layer of pages Chromium prints from HTML (issue 22's paragraph-boundary
F1): a newspaper's narrow justified columns, whose short lines spread their spaces wider than the
gutter, come back a block per paragraph; a list whose bullets are drawn shapes, an item each; a
form's boxes, a block per label.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import random

import pytest

from .helpers import printed_by_chromium, run

# Long words among short ones in a narrow justified column leave lines of two or three words
# whose spaces are wider than the gutter.
_SHORT = "the of and to a in is it you that he was for on are with as his they be at one have this from"
_LONG = (
    "notwithstanding redistribution documentation acknowledges modifications translations "
    "incorporations permissible attribution indemnification notification requirements"
)
_VOCABULARY = [*_SHORT.split(), *_LONG.split()]
_DRAW = random.Random(22)
PARAGRAPHS = [" ".join(_DRAW.choice(_VOCABULARY) for _ in range(45)).capitalize() + "." for _ in range(10)]

GAZETTE = (
    '<html><body style="font-family:serif;margin:0.5in">'
    '<h1 style="font-size:28pt;margin:0">The Harbour Gazette</h1>'
    '<div style="column-count:4;column-gap:0.2in;font-size:9.5pt;text-align:justify">'
    + "".join(f'<p style="margin:0 0 8pt 0">{p}</p>' for p in PARAGRAPHS)
    + "</div></body></html>"
)

POINTS = [
    "The committee met on Tuesday to review the plans for the harbour",
    "Residents spoke about the noise of the works at night",
    "The council promised to limit the works to daytime hours",
    "The new pier should be finished before the winter storms arrive",
]
SLIDE = (
    '<html><body style="font-family:sans-serif;margin:0.6in;font-size:20pt">'
    '<h1 style="font-size:32pt">Harbour works</h1><ul style="list-style-type:disc">'
    + "".join(f"<li>{p}</li>" for p in POINTS)
    + '</ul><ul style="list-style-type:square">'
    + "".join(f"<li>{p}</li>" for p in POINTS[:2])
    + "</ul></body></html>"
)

# A form's rows, each cut into boxes its own way (shares of the width): a label in each box.
FORM_ROWS = [
    [("APPLICATION FOR A HARBOUR BERTH", 1.0)],
    [("NAME OF VESSEL", 0.35), ("PORT OF REGISTRY", 0.65)],
    [("OWNER", 0.2), ("STREET AND NUMBER", 0.5), ("POSTCODE", 0.3)],
    [("LENGTH OVERALL", 0.6), ("DRAUGHT", 0.4)],
    [("SAIL", 0.25), ("MOTOR", 0.25), ("ROWING", 0.25), ("OTHER", 0.25)],
    [("SIGNATURE OF THE OWNER", 0.7), ("DATE", 0.3)],
]
FORM = (
    '<html><body style="font-family:sans-serif;font-size:9pt;margin:0.7in">'
    + "".join(
        '<div style="display:flex;border:1px solid black;border-top:none">'
        + "".join(
            f'<div style="box-sizing:border-box;width:{share * 100:.0f}%;height:0.45in;padding:3pt;'
            f'border-left:{"1px solid black" if k else "none"}">{label}</div>'
            for k, (label, share) in enumerate(row)
        )
        + "</div>"
        for row in FORM_ROWS
    ).replace("border-top:none", "border-top:1px solid black", 1)
    + "</body></html>"
)


@pytest.fixture(scope="module")
def printed() -> dict[str, bytes]:
    """Each page printed to PDF by Chromium."""
    return printed_by_chromium({"gazette": GAZETTE, "slide": SLIDE, "form": FORM})


def test_justified_newspaper_columns_keep_their_paragraphs_whole(printed: dict[str, bytes]) -> None:
    """Lines of two or three long words spread their spaces wider than the 0.2 in gutter; where
    two such spaces overlapped, the column was cut there and its lines read as blocks of a word
    or two. Each paragraph is one block (a paragraph broken over two columns, two)."""
    page = run(printed["gazette"]).pages[0]
    texts = [b.text for b in page.blocks if b.type == "text"]
    assert " ".join(texts).split() == " ".join(PARAGRAPHS).split()
    assert len(texts) <= len(PARAGRAPHS) + 4  # at most one paragraph broken at each column's foot
    assert all(len(t.split()) >= 5 for t in texts)


def test_drawn_bullets_make_list_items(printed: dict[str, bytes]) -> None:
    """Chromium paints a list's discs and squares as paths; the text layer has no bullet, and the
    items ran together as one paragraph. Each item is an item of a list, its text whole."""
    page = run(printed["slide"]).pages[0]
    items = [item for b in page.blocks if b.type == "list" for item in b.text.split("\n")]
    assert items == [*POINTS, *POINTS[:2]]
    assert not [b for b in page.blocks if b.type == "text"]


def test_a_forms_boxes_are_read_box_by_box_not_as_one_table(printed: dict[str, bytes]) -> None:
    """Rows cut into boxes each their own way make a ruled grid whose cells mostly span several
    of its columns: a form, not a table. Each box's label is a block, row by row, left to right."""
    page = run(printed["form"]).pages[0]
    assert not [b for b in page.blocks if b.type == "table"]
    assert [b.text for b in page.blocks] == [label for row in FORM_ROWS for label, _ in row]
