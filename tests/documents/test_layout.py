"""Layout building blocks on synthetic masks: XY-cut order and table grids with spans."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ocrqueue.documents.layout.tables import find_tables
from ocrqueue.documents.layout.xycut import _any_band_has_gutter, _runs, xy_cut, xy_cut_page


def test_xy_cut_reads_title_then_left_then_right_column() -> None:
    mask = np.zeros((100, 100), dtype=bool)
    mask[5:10, 10:90] = True  # full-width title
    for y in range(20, 90, 6):
        mask[y : y + 3, 10:45] = True  # left column lines
        mask[y : y + 3, 55:90] = True  # right column lines, aligned with the left ones
    regions = xy_cut(mask, min_col_gap=5)
    assert [(r.x0, r.y0) for r in regions] == [(10, 5), (10, 20), (55, 20)]


def test_header_and_footer_come_first_and_last() -> None:
    mask = np.zeros((200, 100), dtype=bool)
    mask[2:5, 10:40] = True  # header
    mask[190:195, 60:70] = True  # footer under the right column
    mask[20:180, 10:45] = True
    mask[20:180, 55:90] = True
    regions = xy_cut_page(mask, 5, 0.07)
    assert [(r.x0, r.y0) for r in regions] == [(10, 2), (10, 20), (55, 20), (60, 190)]


def _grid(rows: list[int], cols: list[int], size: int = 120) -> tuple[np.ndarray, np.ndarray]:
    h = np.zeros((size, size), dtype=bool)
    v = np.zeros((size, size), dtype=bool)
    for y in rows:
        h[y : y + 2, cols[0] : cols[-1] + 2] = True
    for x in cols:
        v[rows[0] : rows[-1] + 2, x : x + 2] = True
    return h, v


def test_table_grid_and_column_span() -> None:
    h, v = _grid([10, 30, 50, 70], [10, 40, 70, 100])
    v[10:30, 40:42] = False  # no rule between the first two cells of row 0
    (table,) = find_tables(h, v, tol=3)
    assert (table.n_rows, table.n_cols) == (3, 3)
    first = table.cells[0]
    assert (first.row, first.col, first.row_span, first.col_span) == (0, 0, 1, 2)
    assert len(table.cells) == 8


def test_table_row_span_and_no_table_without_crossing_rules() -> None:
    h, v = _grid([10, 30, 50], [10, 60, 100])
    h[30:32, 60:100] = False  # right column: one cell spanning both rows
    (table,) = find_tables(h, v, tol=3)
    spans = {(c.row, c.col): (c.row_span, c.col_span) for c in table.cells}
    assert spans == {(0, 0): (1, 1), (0, 1): (2, 1), (1, 0): (1, 1)}
    lone_h, lone_v = _grid([10, 30], [10, 60])
    lone_v[:] = False
    assert find_tables(lone_h, lone_v, tol=3) == []


@settings(max_examples=200, deadline=None)
@given(mask=arrays(np.bool_, st.tuples(st.integers(1, 30), st.integers(1, 40))), min_gap=st.integers(1, 6))
def test_bands_with_a_gutter_found_at_once_as_band_by_band(mask: np.ndarray, min_gap: int) -> None:
    """The bands of rows between empty rows, each looked at alone: a run of at least ``min_gap``
    empty columns between two inked ones."""
    gaps = _runs(mask.any(axis=1))
    bands = [0, *[v for gap in gaps for v in gap], mask.shape[0]]
    expected = any(
        any(end - start >= min_gap for start, end in _runs(mask[bands[i] : bands[i + 1]].any(axis=0)))
        for i in range(0, len(bands), 2)
    )
    assert _any_band_has_gutter(mask, gaps, min_gap) == expected
