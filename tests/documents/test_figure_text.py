"""Text inside figures on the OCR path (axis labels, diagram words) is kept in the figure block's
lines with boxes, so search finds it, and stays out of the prose."""

from __future__ import annotations

from generate import DIAGRAM_WORDS, ENGLISH, encode, labelled_chart_page

from .helpers import run


def test_labels_inside_a_chart_are_the_figure_lines() -> None:
    result = run(encode(labelled_chart_page(), "PNG"))
    page = result.pages[0]
    figures = [b for b in page.blocks if b.type == "figure"]
    assert len(figures) == 1
    figure = figures[0]
    words = {w.text for ln in figure.lines for w in ln.words}
    assert {*DIAGRAM_WORDS, "Q2", "Q3", "Q4"} <= words
    for line in figure.lines:
        assert line.words and all(figure.bbox.contains_center_of(w.bbox) for w in line.words)
    assert "Worker" in figure.text
    prose = " ".join(b.text for b in page.blocks if b.type != "figure")
    assert ENGLISH[0] in prose and ENGLISH[3] in prose
    assert not {*DIAGRAM_WORDS, "Q2", "Q3"} & set(prose.split())
    assert "Queue" not in result.to_markdown()
