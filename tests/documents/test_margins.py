"""Notes in the left margin: split from the body lines beside them and read after the item they
annotate; text set out to the left of the body (description lists, list markers) stays body."""

from __future__ import annotations

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.margins import split_margin, with_notes
from ocrqueue.documents.model import Block, Line, Word


def _line(y: float, *pieces: tuple[float, str]) -> Line:
    """Words at (x, text), 5 pt per character, on the row at ``y``."""
    words = tuple(Word(text, BBox(x, y, x + 5 * len(text), y + 10)) for x, text in pieces)
    return Line(" ".join(w.text for w in words), BBox(words[0].bbox.x0, y, words[-1].bbox.x1, y + 10), 1.0, words)


BODY = 131.0


def _manual_page() -> list[Line]:
    """An option list as LaTeX package manuals set it: names in the margin (x 53), the item and
    its description at the body's edge (x 131), the first note on the item's own line."""
    return [
        _line(76, (60, "KaiMing"), (BODY, "KaiMingPunct"), (200, "="), (210, "{...}")),
        _line(88, (60, "KaiMing+")),
        _line(99, (BODY, "sets"), (160, "the"), (180, "punctuation"), (240, "of"), (260, "sentences")),
        _line(111, (BODY, "and"), (160, "more"), (190, "text")),
        _line(140, (60, "LongPunct"), (BODY, "LongPunct"), (190, "="), (200, "{...}")),
        _line(152, (BODY, "sets"), (160, "long"), (190, "punctuation")),
        _line(164, (BODY, "such"), (160, "as"), (180, "dashes")),
    ]


def test_margin_notes_are_split_from_the_lines_beside_them() -> None:
    (body,), notes = split_margin([_manual_page()])
    assert [n.text for n in notes] == ["KaiMing", "KaiMing+", "LongPunct"]
    assert body[0].text == "KaiMingPunct = {...}"
    assert all(w.bbox.x0 >= BODY for ln in body for w in ln.words)


def test_a_note_is_read_after_the_item_it_stands_beside() -> None:
    _, notes = split_margin([_manual_page()])
    item = Block(
        "text", BBox(BODY, 76, 300, 121), "KaiMingPunct = {...} sets the punctuation of sentences and more text"
    )
    second = Block("text", BBox(BODY, 140, 300, 174), "LongPunct = {...} sets long punctuation such as dashes")
    note_blocks = [
        Block("text", BBox(60, 76, 100, 98), "KaiMing KaiMing+", lines=tuple(notes[:2])),
        Block("text", BBox(60, 140, 110, 150), "LongPunct", lines=(notes[2],)),
    ]
    order = with_notes([item, second], note_blocks)
    assert [b.text.split()[0] for b in order] == ["KaiMingPunct", "KaiMing", "LongPunct", "LongPunct"]
    assert order[1].bbox.x0 == 60 and order[3].bbox.x0 == 60


def test_a_description_list_set_out_to_the_left_is_no_margin() -> None:
    """R's manual: terms at x 90 and paragraphs running from x 90 across the descriptions' edge."""
    lines = [
        _line(100, (90, "xlab=string")),
        _line(112, (148, "Axis"), (175, "labels"), (210, "for"), (230, "the"), (250, "axes")),
        _line(124, (148, "usually"), (190, "the"), (210, "names")),
        _line(136, (90, "Sometimes"), (145, "the"), (170, "high-level"), (230, "functions")),
        _line(148, (90, "desire."), (130, "In"), (145, "this"), (170, "case")),
        _line(160, (90, "main=string")),
        _line(172, (148, "Figure"), (190, "title"), (220, "placed")),
        _line(184, (148, "at"), (165, "the"), (185, "top")),
    ]
    groups, notes = split_margin([lines])
    assert notes == [] and groups == [lines]


def test_list_markers_and_line_numbers_stay_with_their_lines() -> None:
    lines = [
        _line(100 + 12 * i, (110, f"{i + 1}."), (BODY, "an"), (150, "item"), (180, "of"), (200, "a"), (210, "list"))
        for i in range(6)
    ]
    groups, notes = split_margin([lines])
    assert notes == [] and groups == [lines]
