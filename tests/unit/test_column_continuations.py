"""A paragraph running on from the foot of one column to the head of the next
(layout/continued.py): the next column's block is marked ``continues``, and only when the first
part's last line fills its column without ending a sentence and the second starts in lowercase."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.continued import marked_continuations, runs_on
from ocrqueue.documents.model import Block, Line, PageResult
from ocrqueue.documents.output.html import page_html
from ocrqueue.documents.output.markdown import page_markdown_parts
from ocrqueue.documents.output.plaintext import page_text

SIZE = 10.0
LEFT = (50.0, 280.0)
RIGHT = (310.0, 540.0)


def _block(texts: list[str], column: tuple[float, float], top: float, last_width: float | None = None) -> Block:
    x0, x1 = column
    lines = []
    for i, text in enumerate(texts):
        right = x0 + last_width if last_width is not None and i == len(texts) - 1 else x1
        lines.append(Line(text, BBox(x0, top + 12 * i, right, top + 12 * i + SIZE), 1.0, (), SIZE))
    box = BBox(x0, top, x1, top + 12 * len(texts) - 2)
    return Block("text", box, " ".join(texts), 1.0, tuple(lines))


FOOT = _block(["The committee met on Tuesday to review", "the plans for the harbour and the"], LEFT, 700)
HEAD = _block(["new pier, which the town had asked", "for since the storm of the winter."], RIGHT, 60)


def test_a_paragraph_across_the_column_break_continues() -> None:
    assert runs_on(FOOT, HEAD)
    assert [b.continues for b in marked_continuations([FOOT, HEAD])] == [False, True]


@pytest.mark.parametrize(
    "before, after",
    [
        (_block(["The committee met on Tuesday to review", "the plans for the harbour."], LEFT, 700), HEAD),
        (_block(["The committee met on Tuesday to review", "the plans for"], LEFT, 700, last_width=60), HEAD),
        (FOOT, _block(["New pier plans were asked for since", "the storm of the winter."], RIGHT, 60)),
        (FOOT, _block(["new pier, which the town had asked"], LEFT, 740)),
        (FOOT, replace(HEAD, type="title")),
        (FOOT, replace(HEAD, lines=tuple(replace(ln, font_size=14.0) for ln in HEAD.lines))),
        (replace(FOOT, type="caption"), HEAD),
        (_block(["the plans for"], LEFT, 700, last_width=60), HEAD),
        (FOOT, _block(["Комитет собрался во вторник", "чтобы обсудить планы."], RIGHT, 60)),
        (
            _block(["委员会于周二开会审议了新码头", "的计划和冬季风暴之后的修"], LEFT, 700),
            _block(["复工作安排。"], RIGHT, 60),
        ),
    ],
    ids=[
        "sentence-ends",
        "short-last-line",
        "capital-start",
        "same-column-below",
        "title",
        "other-size",
        "caption-before",
        "one-short-line",
        "capital-cyrillic",
        "caseless-han",
    ],
)
def test_a_paragraph_that_ends_or_a_block_that_does_not_run_on_is_left_alone(before: Block, after: Block) -> None:
    assert not runs_on(before, after)


def test_markdown_html_and_text_join_the_parts_and_mend_a_word_broken_at_the_break() -> None:
    foot = replace(FOOT, text="The committee met on Tuesday to review the plans for the har-")
    head = replace(HEAD, text="bour and the new pier.", continues=True)
    page = PageResult(0, 595.0, 842.0, "test", (foot, head))
    whole = "The committee met on Tuesday to review the plans for the harbour and the new pier."
    assert page_markdown_parts(page) == [whole]
    assert page_text(page) == whole
    assert page_html(page).count("<p>") == 1
    assert head.to_dict()["continues"] is True and "continues" not in foot.to_dict()
    assert Block.from_dict(head.to_dict()).continues


def test_a_continuing_block_after_anything_but_text_stays_a_paragraph_of_its_own() -> None:
    figure = replace(FOOT, type="figure", text="", lines=())
    head = replace(HEAD, continues=True)
    page = PageResult(0, 595.0, 842.0, "test", (FOOT, figure, head))
    assert page_markdown_parts(page) == [FOOT.text, HEAD.text]
