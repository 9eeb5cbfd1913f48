"""The structure measures of the document corpus: headings, paragraph boundaries, table TEDS and
cell-text F1, block order."""

from __future__ import annotations

from data.structure_metrics import (
    Counts,
    best_tables,
    boundary_counts,
    cell_text_f1,
    heading_counts,
    order_score,
    teds,
)
from hypothesis import given
from hypothesis import strategies as st

cell = st.text(alphabet="abc 12.", max_size=6)
grid = st.lists(st.lists(cell, min_size=1, max_size=4), min_size=1, max_size=5)

PARAGRAPHS = [
    "The board met on Monday and agreed the budget for the coming year.",
    "Pipes in the northern district will be replaced before the winter.",
    "Questions from the public were answered after the break.",
    "The next meeting is planned for the first week of March.",
]


@given(grid)
def test_a_grid_is_identical_to_itself(g: list[list[str]]) -> None:
    assert teds(g, g) == 1.0


@given(grid, grid)
def test_teds_is_symmetric_and_bounded(a: list[list[str]], b: list[list[str]]) -> None:
    assert abs(teds(a, b) - teds(b, a)) < 1e-9
    assert 0.0 <= teds(a, b) <= 1.0


@given(grid, grid)
def test_cell_text_f1_is_bounded_and_symmetric(a: list[list[str]], b: list[list[str]]) -> None:
    assert 0.0 <= cell_text_f1(a, b) <= 1.0
    assert abs(cell_text_f1(a, b) - cell_text_f1(b, a)) < 1e-9


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_f1_lies_between_zero_and_one(matched: int, extra_predicted: int, extra_true: int) -> None:
    counts = Counts(matched, matched + extra_predicted, matched + extra_true)
    assert 0.0 <= counts.f1 <= 1.0
    assert min(counts.precision, counts.recall) - 1e-12 <= counts.f1 <= max(counts.precision, counts.recall) + 1e-12


def test_a_table_read_column_by_column_scores_low() -> None:
    true = [["No.", "Name", "Description"], ["15", "CPLXSXP", "complex vectors"], ["16", "STRSXP", "strings"]]
    transposed = [list(col) for col in zip(*true, strict=True)]
    assert teds(true, true) == 1.0
    assert teds(true, transposed) < 0.6
    assert teds(true, [row[:2] for row in true]) > teds(true, transposed)
    assert cell_text_f1(true, transposed) == 1.0  # same cells, wrong places: TEDS sees it, F1 does not


def test_a_decimal_point_lost_costs_less_than_a_lost_row() -> None:
    true = [["Pipes", "7.7 %"], ["Pumps", "99.00"]]
    assert teds(true, [["Pipes", "77%"], ["Pumps", "99.00"]]) > teds(true, [["Pipes", "7.7 %"]])


def test_each_true_table_meets_its_best_reading_once() -> None:
    a, b = [["a", "b"], ["1", "2"]], [["x", "y", "z"]]
    assert best_tables([a, b], [b, a]) == [(1.0, 1.0), (1.0, 1.0)]
    assert best_tables([a, b], [a]) == [(1.0, 1.0), (0.0, 0.0)]


def test_headings_match_one_to_one_despite_small_misreadings() -> None:
    counts = heading_counts(["Annual report", "Finances", "Outlook"], ["Annual rep0rt", "Finances", "Finances"])
    assert counts == Counts(2, 3, 3)
    assert heading_counts([], []).f1 == 1.0
    assert heading_counts(["Finances"], []).f1 == 0.0


def test_boundaries_count_only_where_a_block_starts_in_both() -> None:
    assert boundary_counts(PARAGRAPHS, PARAGRAPHS) == Counts(3, 3, 3)
    merged = [PARAGRAPHS[0] + " " + PARAGRAPHS[1], *PARAGRAPHS[2:]]
    assert boundary_counts(PARAGRAPHS, merged) == Counts(2, 2, 3)
    split_lines = [line for p in PARAGRAPHS for line in (p[: len(p) // 2], p[len(p) // 2 :])]
    counts = boundary_counts(PARAGRAPHS, split_lines)
    assert counts.recall == 1.0 and counts.precision < 0.5


def test_a_list_items_label_the_reading_leaves_out_is_stepped_over() -> None:
    """Tagged list items carry their labels ("311.", "b)"); a reading's list items do not (the
    Markdown list numbers them), and their boundaries still fall where the truth's do."""
    true = ["311. Linskey and others on surgery.", "312. Kalkanis on resection.", "b) A lettered item."]
    read = ["Linskey and others on surgery.", "Kalkanis on resection.", "A lettered item."]
    assert boundary_counts(true, read) == Counts(2, 2, 2)
    # A word the reading dropped that is no label is not stepped over.
    assert boundary_counts(["One two.", "Harbour three four."], ["One two.", "three four."]) == Counts(0, 1, 1)


def test_block_order_is_one_in_order_and_zero_reversed() -> None:
    assert order_score(PARAGRAPHS, " ".join(PARAGRAPHS)) == 1.0
    assert order_score(PARAGRAPHS, " ".join(reversed(PARAGRAPHS))) == 0.0
    swapped = " ".join([PARAGRAPHS[1], PARAGRAPHS[0], *PARAGRAPHS[2:]])
    assert 0.5 < order_score(PARAGRAPHS, swapped) < 1.0  # type: ignore[operator]
    assert order_score(PARAGRAPHS[:1], PARAGRAPHS[0]) is None


def test_boundaries_at_words_the_truth_leaves_out_are_not_judged() -> None:
    """A running head or a printer's stamp is an artifact the tags leave out: the reading's block
    for it, and the boundary after it before the truth's first word, fall where the truth cannot
    say; a boundary inside the truth's text is still judged."""
    true = ["One two three.", "Four five six."]
    read = ["Printed by someone on a date.", "One two three.", "Four five six.", "Page 7"]
    assert boundary_counts(true, read) == Counts(1, 1, 1)
    split = ["Printed by someone.", "One two", "three.", "Four five six."]
    assert boundary_counts(true, split) == Counts(1, 2, 1)
