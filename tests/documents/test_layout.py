"""Layout building blocks on synthetic masks: XY-cut order and table grids with spans."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image, ImageDraw

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import reading_sort
from ocrqueue.documents.layout.raster import analyse, find_rules
from ocrqueue.documents.layout.straighten import Straightened, deskew
from ocrqueue.documents.layout.tables import find_tables
from ocrqueue.documents.layout.xycut import (
    EDGE_SLACK,
    GUTTER_BANDS,
    WIDE_GUTTER_GAPS,
    _any_band_has_gutter,
    _runs,
    margin_split,
    xy_cut,
    xy_cut_page,
)
from ocrqueue.documents.model import Line


def test_xy_cut_reads_title_then_left_then_right_column() -> None:
    mask = np.zeros((100, 100), dtype=bool)
    mask[5:10, 10:90] = True  # full-width title
    for y in range(20, 90, 6):
        mask[y : y + 3, 10:45] = True  # left column lines
        mask[y : y + 3, 55:90] = True  # right column lines, aligned with the left ones
    regions = xy_cut(mask, min_col_gap=5)
    assert [(r.x0, r.y0) for r in regions] == [(10, 5), (10, 20), (55, 20)]


def test_columns_under_a_line_across_them_are_read_whole_though_they_end_paragraphs_together() -> None:
    mask = np.zeros((120, 100), dtype=bool)
    mask[5:10, 10:90] = True  # a standfirst across both columns
    for y in [*range(14, 50, 6), *range(60, 110, 6)]:  # both columns end a paragraph at rows 50-60
        mask[y : y + 3, 10:45] = True
        mask[y : y + 3, 55:90] = True
    regions = xy_cut(mask, min_col_gap=5)
    assert [(r.x0, r.y0, r.y1) for r in regions] == [(10, 5, 10), (10, 14, 111), (55, 14, 111)]


def test_header_and_footer_come_first_and_last() -> None:
    mask = np.zeros((200, 100), dtype=bool)
    mask[2:5, 10:40] = True  # header
    mask[190:195, 60:70] = True  # footer under the right column
    mask[20:180, 10:45] = True
    mask[20:180, 55:90] = True
    regions = xy_cut_page(mask, 5, 0.07)
    assert [(r.x0, r.y0) for r in regions] == [(10, 2), (10, 20), (55, 20), (60, 190)]


def test_columns_whose_lines_do_not_line_up_have_no_running_head() -> None:
    """Four columns from the top of the page, their lines a cell or two apart from column to column
    after the first (a paragraph's space or a heading in one column shifts its lines): across the
    page only slivers of gap are left between rows, and the first row was set apart by more than
    one and a half of those, read as a running head. Each column is read whole."""
    mask = np.zeros((400, 210), dtype=bool)
    for k, shift in enumerate((0, 1, 2, 0)):
        x = 10 + 50 * k
        for i in range(40):
            y = 10 + 6 * i + (shift if i else 0)
            mask[y : y + 3, x : x + 40] = True
    regions = xy_cut_page(mask, 5, 0.07)
    assert [(r.x0, r.y0) for r in regions] == [(10, 10), (60, 10), (110, 10), (160, 10)]


def test_words_of_one_row_stay_left_to_right_whatever_their_heights() -> None:
    """A Chinese word and a Latin word on one row have centres a fraction of a point apart; bands
    of a fixed height once put the right one first when their centres fell either side of an edge
    (a table cell read "或缓存条目 ARP NDISC" for "ARP 或 NDISC 缓存条目")."""
    right = Line("right", BBox(100, 7.4, 140, 17.4))
    left = Line("left", BBox(0, 7.6, 40, 17.6))
    below = Line("below", BBox(0, 20, 40, 30))
    assert [ln.text for ln in reading_sort([below, right, left])] == ["left", "right", "below"]


@settings(max_examples=200, deadline=None)
@given(
    ys=st.lists(st.floats(0, 500), min_size=1, max_size=30),
    xs=st.lists(st.floats(0, 500), min_size=30, max_size=30),
)
def test_reading_sort_keeps_every_line_and_puts_no_lower_row_first(ys: list[float], xs: list[float]) -> None:
    lines = [Line(str(i), BBox(x, y, x + 20, y + 10)) for i, (x, y) in enumerate(zip(xs, ys, strict=False))]
    ordered = reading_sort(lines)
    assert sorted(ln.text for ln in ordered) == sorted(ln.text for ln in lines)
    for earlier, later in itertools.pairwise(ordered):
        assert earlier.bbox.cy <= later.bbox.cy + 5.0  # half a line height: the row's tolerance


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


def test_a_rule_beside_a_stroke_far_above_it_is_placed_where_it_runs() -> None:
    """A slide's vertical rule stood one pixel right of a title letter's stem above the table: the
    two made one band of columns, the rule was placed in the band's middle, where no rule runs, and
    the two columns beside it were read as one cell (dev nlp2004slides p. 22, CER 0.44)."""
    h, v = _grid([40, 60, 100], [10, 60, 110], size=130)
    v[2:20, 40:60] = True  # a stroke of large type, far above the table, touching the rule's columns
    (table,) = find_tables(h, v, tol=3)
    assert (table.n_rows, table.n_cols) == (2, 2)
    assert all((c.row_span, c.col_span) == (1, 1) for c in table.cells)
    assert next(c.x1 for c in table.cells if c.row == 0) in range(58, 64)


def test_table_row_span_and_no_table_without_crossing_rules() -> None:
    h, v = _grid([10, 30, 50], [10, 60, 100])
    h[30:32, 60:100] = False  # right column: one cell spanning both rows
    (table,) = find_tables(h, v, tol=3)
    spans = {(c.row, c.col): (c.row_span, c.col_span) for c in table.cells}
    assert spans == {(0, 0): (1, 1), (0, 1): (2, 1), (1, 0): (1, 1)}
    lone_h, lone_v = _grid([10, 30], [10, 60])
    lone_v[:] = False
    assert find_tables(lone_h, lone_v, tol=3) == []


def test_a_table_open_at_its_sides_takes_its_edges_from_its_horizontal_rules() -> None:
    """DocBook sets tables with rules between columns only: the outer columns used to be lost."""
    h, v = _grid([10, 30, 50, 70], [10, 40, 70, 110])
    v[:, 10:12] = False  # no rule down the left side
    v[:, 110:112] = False  # nor down the right side
    (table,) = find_tables(h, v, tol=3)
    assert (table.n_rows, table.n_cols) == (3, 3)
    assert (table.x0, table.x1) == (10, 112)
    (two_columns,) = find_tables(*_open_sides(_grid([10, 30, 50, 70], [10, 60, 110])), tol=3)
    assert (two_columns.n_rows, two_columns.n_cols) == (3, 2)


def test_one_vertical_rule_across_two_horizontal_ones_is_not_a_table() -> None:
    """A table with a single inner rule needs three horizontal rules to be taken for one."""
    assert find_tables(*_open_sides(_grid([10, 50], [10, 60, 110])), tol=3) == []


def _open_sides(masks: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    h, v = masks
    v = v.copy()
    v[:, :12] = False
    v[:, 100:] = False
    return h, v


@settings(max_examples=200, deadline=None)
@given(
    mask=arrays(np.bool_, st.tuples(st.integers(1, 30), st.integers(1, 40))),
    min_gap=st.integers(1, 6),
    through=st.integers(2, 3),
)
def test_bands_with_a_gutter_found_at_once_as_band_by_band(mask: np.ndarray, min_gap: int, through: int) -> None:
    """The bands of rows between empty rows, each looked at alone: ``through`` neighbouring bands
    each with a run of at least ``min_gap`` empty columns between two inked ones, the runs sharing
    at least half of ``min_gap`` columns (at least one), for three with a straight edge beside
    the shared gap (``EDGE_SLACK``); for three, two bands are enough when they
    share ``WIDE_GUTTER_GAPS`` gaps that three bands reach into, and one or two when they are as
    tall as three bands of the median height."""
    gaps = _runs(mask.any(axis=1))
    bands = [0, *[v for gap in gaps for v in gap], mask.shape[0]]

    def gutter_columns(band: np.ndarray) -> set[int]:
        return {c for start, end in _runs(band.any(axis=0)) if end - start >= min_gap for c in range(start, end)}

    columns = [gutter_columns(mask[bands[i] : bands[i + 1]]) for i in range(0, len(bands), 2)]
    ink = [{int(c) for c in np.flatnonzero(mask[bands[i] : bands[i + 1]].any(axis=0))} for i in range(0, len(bands), 2)]
    heights = [bands[i + 1] - bands[i] for i in range(0, len(bands), 2)]
    enough = max(1, min_gap // 2)

    def straight_edge(i: int) -> bool:
        """Three bands' ink starts right of their shared gap, or ends left of it, in one column."""
        common = set.intersection(*columns[i : i + through])
        starts = [min((c for c in ink[k] if c > max(common)), default=mask.shape[1]) for k in range(i, i + through)]
        ends = [max((c for c in ink[k] if c < min(common)), default=-1) for k in range(i, i + through)]
        return max(starts) - min(starts) <= EDGE_SLACK or max(ends) - min(ends) <= EDGE_SLACK

    expected = any(
        len(set.intersection(*columns[i : i + through])) >= enough and (through == GUTTER_BANDS or straight_edge(i))
        for i in range(len(columns) - through + 1)
    )
    if through > GUTTER_BANDS:
        tall = through * float(np.median(heights))
        for fewer in range(1, through):
            for i in range(len(columns) - fewer + 1):
                shared = len(set.intersection(*columns[i : i + fewer]))
                if fewer == GUTTER_BANDS and shared >= WIDE_GUTTER_GAPS * min_gap:
                    gap = columns[i] & columns[i + 1]
                    expected |= sum(len(c & gap) >= enough for c in columns) >= through
                expected |= shared >= enough and sum(heights[i : i + fewer]) >= tall
    assert _any_band_has_gutter(mask, gaps, min_gap, through) == expected


def _page_with_boxes(boxes: list[tuple[int, int, int, int]]) -> Straightened:
    image = Image.new("L", (1000, 800), 255)
    draw = ImageDraw.Draw(image)
    for box in boxes:
        draw.rectangle(box, fill=0)
    return deskew(image.convert("RGB"), 100)


def test_islands_over_one_area_are_read_once() -> None:
    """The layout model may call one box a figure and a formula at once: each island is read, so
    both gave the box's text (a LaTeX source box came out twice)."""
    box = (100, 100, 400, 300)
    page = _page_with_boxes([box])
    layout = analyse(page, None, 100, [("figure", box), ("formula", (104, 102, 404, 296))])
    assert [i.kind for i in layout.islands] == ["formula"]


def test_islands_side_by_side_are_read_left_first() -> None:
    """A source box and its output, the right one starting a few pixels higher."""
    left, right = (100, 306, 400, 500), (404, 300, 800, 510)  # too close for a gutter: one region
    layout = analyse(_page_with_boxes([left, right]), None, 100, [("formula", right), ("formula", left)])
    assert [i.box for i in layout.islands] == [left, right]


def test_text_beside_an_island_too_close_for_a_gutter_is_read_around_it() -> None:
    """A listing beside the output the layout model took for a figure, 0.08 in apart: one leaf,
    whose rows were cut at the island's top and bottom, and the listing's lines with them. Its
    text comes before the island, and text between two islands once, after the left one."""
    prose = [(100, y, 800, y + 10) for y in (100, 120, 140)]
    code = [(100, y, 380, y + 10) for y in range(200, 400, 20)]
    figure = (388, 195, 800, 400)
    drawing = (392, 199, 796, 396)
    layout = analyse(_page_with_boxes([*prose, *code, drawing]), None, 100, [("figure", figure)])
    beside = [r for r in layout.regions if r[1] >= 190 and r[3] <= 410]
    assert len(beside) == 1 and beside[0][2] <= 388, layout.regions
    assert layout.islands[0].box == figure and layout.island_after[0] == layout.regions.index(beside[0]) + 1

    left, right = (100, 200, 300, 400), (500, 200, 800, 400)
    between = [(320, y, 480, y + 10) for y in range(210, 390, 20)]
    drawings = [(104, 204, 296, 396), (504, 204, 796, 396)]
    layout = analyse(_page_with_boxes([*drawings, *between]), None, 100, [("figure", left), ("figure", right)])
    beside = [r for r in layout.regions if r[1] >= 190 and r[3] <= 410]
    assert len(beside) == 1 and beside[0][0] >= 300 and beside[0][2] <= 500, layout.regions


def _notes_page(body_lines: int) -> np.ndarray:
    """Cells at 50 per inch: notes 30 cells wide at the left (two of them, apart), a gap of 3
    cells, then the body's lines, each starting at the body's edge (column 40)."""
    mask = np.zeros((20 + 8 * body_lines, 200), dtype=bool)
    mask[20:24, 8:37] = True
    mask[52:56, 12:37] = True
    for i in range(body_lines):
        mask[20 + 8 * i : 24 + 8 * i, 40 : 190 - 30 * (i % 2)] = True
    return mask


def test_notes_left_of_a_straight_body_edge_are_cut_off_first() -> None:
    assert margin_split(_notes_page(8), 50) == 40
    regions = xy_cut_page(_notes_page(8), 10, 0.0, 50)
    assert [(r.x0, r.x1) for r in regions][-1] == (40, 190)  # the body is one region, after the notes
    assert margin_split(_notes_page(2), 50) is None  # a gap down two lines is a gap between words


def test_text_set_out_across_the_edge_is_no_margin() -> None:
    mask = _notes_page(8)
    mask[36:40, 8:190] = True  # a paragraph running from the notes' side across the edge
    assert margin_split(mask, 50) is None


def test_a_narrow_gutter_gives_way_to_a_gap_of_more_than_a_line() -> None:
    """A paragraph above two boxes side by side, a gap between two of its characters in line with
    the boxes' gutter: it was read left half, then right half."""
    mask = np.zeros((200, 200), dtype=bool)
    for y in (10, 18):  # the paragraph's two lines, a 4-cell gap at column 100 in each
        mask[y : y + 5, 10:100] = True
        mask[y : y + 5, 104:190] = True
    for y in range(40, 190, 8):  # two boxes' lines, the same 4-cell gutter between them
        mask[y : y + 5, 10:100] = True
        mask[y : y + 5, 104:190] = True
    regions = xy_cut_page(mask, 10, 0.0, 50)
    assert (regions[0].x0, regions[0].x1, regions[0].y0, regions[0].y1) == (10, 190, 10, 23)
    assert [(r.x0, r.x1) for r in regions[1:]] == [(10, 100), (104, 190)]


def test_thin_rules_across_two_rows_of_cells_are_found() -> None:
    """At 300 dpi a cell of the coarse grid is 6 pixels; a rule 2 pixels thick lying across two
    cells is a sixth of each, too little for the grid, and its band was not searched: a table of
    eight rows came out with five."""
    image = Image.new("L", (1500, 1200), 255)
    draw = ImageDraw.Draw(image)
    rows = [600 + 60 * i for i in range(9)]  # 600 = 6 x 100: each rule's two rows straddle a cell edge
    for y in rows:
        draw.rectangle((200, y - 1, 1300, y), fill=0)
    for x in (600, 900):  # rules between the columns only
        draw.rectangle((x, rows[0], x + 1, rows[-1]), fill=0)
    for y in range(100, 500, 50):  # lines of text above it, which the page is straightened by
        draw.rectangle((200, y, 1300, y + 20), fill=0)
    (grid,) = find_rules(deskew(image.convert("RGB"), 300), 300).grids
    assert (grid.n_rows, grid.n_cols) == (8, 3)


def test_a_gap_in_a_long_first_line_over_short_lines_is_no_gutter() -> None:
    """A paragraph whose first line has a gap a little wider than a gutter near its end (after a
    full stop, before a thin "一") above shorter lines: its end was cut off as a column."""
    mask = np.zeros((60, 200), dtype=bool)
    mask[10:15, 10:150] = True
    mask[10:15, 162:190] = True  # 12 cells on: a gutter is 10
    for y in (20, 30, 40):
        mask[y : y + 5, 10:120] = True
    regions = xy_cut_page(mask, 10, 0.0, 50)
    assert [(r.x0, r.x1) for r in regions] == [(10, 190)]  # the first line whole, with its paragraph
    columns = mask.copy()
    columns[20:25, 162:190] = True  # the right side with two lines of its own: a column
    assert len(xy_cut_page(columns, 10, 0.0, 50)) == 2


def test_text_beside_a_tall_island_is_a_column_of_its_own() -> None:
    """Code beside a formula the layout model found: the island is solid ink in the mask, so its
    rows and the code's make one band, and with three bands wanted that band was never cut; the
    island's rows were then cut out of the region, the code beside it with them."""
    mask = np.zeros((40, 100), dtype=bool)
    for top in (0, 3, 6, 9):
        mask[top : top + 2, 0:100] = True  # prose across the page
    for top in range(14, 36, 3):
        mask[top : top + 2, 0:35] = True  # code lines
    mask[14:36, 60:100] = True  # the island, one band with the code
    regions = xy_cut(mask, 10, bands=3)
    assert any(r.x1 <= 35 and r.y0 >= 14 for r in regions), regions
    assert any(r.x0 >= 60 and r.y0 >= 14 for r in regions), regions


def test_a_river_down_a_justified_column_is_no_gutter() -> None:
    """Three lines of a justified column whose spaces line up: the words right of the river start
    in different columns and those left of it end in different columns. The same gap with the
    lines right of it starting in one column is a gutter."""
    river = np.zeros((11, 90), dtype=bool)
    for top, (left_end, right_start) in zip((0, 4, 8), ((30, 52), (34, 49), (27, 55)), strict=True):
        river[top : top + 3, 0:left_end] = True
        river[top : top + 3, right_start:90] = True
    gaps = _runs(river.any(axis=1))
    assert not _any_band_has_gutter(river, gaps, 10, 3)
    column = river.copy()
    for top in (0, 4, 8):
        column[top : top + 3, 36:] = False
        column[top : top + 3, 50:90] = True
    assert _any_band_has_gutter(column, gaps, 10, 3)
