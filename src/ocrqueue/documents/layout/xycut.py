"""Recursive XY-cut on an ink mask: split a page into column-wise text regions in reading order.

Vertical cuts (gutters) are taken before horizontal ones, and a horizontal cut is made at the widest
gap only, so a full-width title above two columns yields [title, left column, right column] rather
than interleaving the columns line by line. The same code serves rendered pages (mask from pixels)
and text-layer pages (mask drawn from line boxes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Mask = npt.NDArray[np.bool_]

# Bands of rows a gutter runs through, at least. Two on a text layer, whose mask is drawn from
# whole lines' boxes. On a rendered page, whose mask holds the gaps between words, three
# (RENDERED_GUTTER_BANDS): in a newspaper's narrow justified column two neighbouring lines often
# share a gap between words as wide as a gutter ("regards   disclaiming" over "implication   that
# these"), and a clean four-column page was cut into 69 regions, its paragraphs read a line or two
# at a time; three lines sharing one are rarer (20 regions). Three on a text layer cost dev CER
# 0.026 -> 0.028 (fop-cid-fonts p. 3 0 -> 0.23, an NCCN guideline's p. 17 0.10 -> 0.24).
GUTTER_BANDS = 2
RENDERED_GUTTER_BANDS = 3
# Fewer bands are enough when two share a gap this many gutters wide that ``bands`` bands of the
# region reach into, or when one or two are as tall as ``bands`` of the region's median band: no
# gap between words is so wide, and no line or two of body type so tall. An example set beside
# what it prints was read across, line by line: a few lines of code beside two lines of output
# (lshort-zh p. 51, a gap 3.7 gutters wide), beside a title in large type two bands high
# (lshort-vi p. 98); and code beside a formula the layout model found, one band with it, was lost
# (the island's rows were cut out of the leaf, its side too). Two gutters wide cut the made
# newspaper of test_newspaper_paragraphs again (its boundary F1 0.70 -> 0.58): a short last line
# of a paragraph beside the next column leaves such a gap.
WIDE_GUTTER_GAPS = 3
# Cells by which the lines of a column may start (or end) apart and still make a straight edge.
EDGE_SLACK = 2


@dataclass(frozen=True)
class Region:
    """A rectangle in mask cells: rows y0..y1-1, columns x0..x1-1."""

    x0: int
    y0: int
    x1: int
    y1: int


def joined_runs(marked: npt.NDArray[np.bool_], gap: int) -> list[tuple[int, int]]:
    """Runs of True in ``marked`` (start, end), runs less than ``gap`` apart joined: the bands of
    ink rows a page's lines make, and the stretches of ink columns along one band."""
    runs: list[tuple[int, int]] = []
    for i in np.flatnonzero(marked).tolist():
        if runs and i - runs[-1][1] < gap:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def _runs(values: object) -> list[tuple[int, int]]:
    """Start/end (exclusive) of each run of False values strictly inside the first and last True."""
    profile: npt.NDArray[np.bool_] = np.asarray(values, dtype=bool)
    idx = np.flatnonzero(profile)
    if idx.size == 0:
        return []
    inner = profile[idx[0] : idx[-1] + 1]
    padded = np.concatenate(([True], inner, [True]))
    changes = np.flatnonzero(padded[1:] != padded[:-1])
    starts, ends = changes[0::2], changes[1::2]
    return [(int(s + idx[0]), int(e + idx[0])) for s, e in zip(starts, ends, strict=True)]


def _trim(mask: Mask, r: Region) -> Region | None:
    sub = mask[r.y0 : r.y1, r.x0 : r.x1]
    rows = np.flatnonzero(sub.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(sub.any(axis=0))
    return Region(r.x0 + int(cols[0]), r.y0 + int(rows[0]), r.x0 + int(cols[-1]) + 1, r.y0 + int(rows[-1]) + 1)


def xy_cut(
    mask: Mask,
    min_col_gap: int,
    max_depth: int = 200,
    offset_y: int = 0,
    narrow: NarrowGutter | None = None,
    offset_x: int = 0,
    bands: int = GUTTER_BANDS,
) -> list[Region]:
    """Leaf regions of ``mask`` in reading order; ``min_col_gap`` is the narrowest gutter in cells
    (``narrow``: narrower ones through tall text)."""
    out: list[Region] = []
    root = _trim(mask, Region(0, 0, mask.shape[1], mask.shape[0]))
    if root is not None:
        _cut(mask, root, min_col_gap, out, max_depth, narrow, bands)
    return [Region(r.x0 + offset_x, r.y0 + offset_y, r.x1 + offset_x, r.y1 + offset_y) for r in out]


MARGIN_GUTTER_IN = 0.04  # the narrowest gap between notes in the left margin and the body
MARGIN_MIN_IN = 0.5  # notes' zone: at least this wide (list markers and line numbers are narrower)
MARGIN_MAX_SHARE = 0.35  # and at most this share of the text's width
MARGIN_ALIGNED_SHARE = 0.4  # rows of the body that start at its edge (the rest are indented)
MARGIN_MIN_BODY_LINES = 6  # lines of body the gap runs down


def margin_split(mask: Mask, cells_per_inch: int) -> int | None:
    """The column at which a zone of notes in the left margin ends and the body begins, when a
    gap runs down the whole of ``mask`` there, the zone left of it is narrow and holds ink in
    rows apart, and the body's rows mostly start right at the gap (a straight left edge: text
    set out to the left, as description lists are, crosses the gap instead). Notes this close to
    the body are too near for a gutter, and cut the body's rows into pieces when taken with it."""
    columns = np.asarray(mask.any(axis=0), dtype=bool)
    ink = np.flatnonzero(columns)
    if ink.size == 0:
        return None
    left, right = int(ink[0]), int(ink[-1]) + 1
    for start, end in _runs(columns):
        if end - start < max(1, round(MARGIN_GUTTER_IN * cells_per_inch)):
            continue
        if start - left < MARGIN_MIN_IN * cells_per_inch or start - left > MARGIN_MAX_SHARE * (right - left):
            continue
        if not _runs(mask[:, left:start].any(axis=1)):
            continue  # the zone's ink in one band: a figure or a heading, not notes
        body = mask[:, end:right]
        present = body.any(axis=1)
        rows = np.flatnonzero(present)
        if len(_runs(present)) + 1 < MARGIN_MIN_BODY_LINES:
            continue  # a gap down a few lines is a gap between words (a receipt in large type)
        starts = body[rows].argmax(axis=1)
        if np.count_nonzero(starts <= 1) >= MARGIN_ALIGNED_SHARE * rows.size:
            return end
    return None


NARROW_GUTTER_IN = 0.07
NARROW_MIN_SIDE_IN = 1.5
NARROW_MIN_HEIGHT_IN = 1.0
NARROW_MIN_LINES = 6


def xy_cut_page(
    mask: Mask, min_col_gap: int, margin_band: float, cells_per_inch: int = 0, bands: int = GUTTER_BANDS
) -> list[Region]:
    """xy_cut, with a running header and footer taken off first when a gap sets them apart from
    the body inside the top or bottom ``margin_band`` (share of the height), so they come first and
    last whatever the columns between them do. Gutters are at least ``min_col_gap`` wide and wider
    than the page's type makes the space between words (``_gap_for_type``). Set apart means wider
    than 1.5 times the page's typical gap between rows (``_typical_row_gap``) and than half the
    header's (footer's) own height: the first line of a paragraph at the top of a page is no header. With
    ``cells_per_inch``, narrower gutters split tall text between wide columns (NarrowGutter)."""
    height = mask.shape[0]
    rows: Mask = np.asarray(mask.any(axis=1), dtype=bool)
    gaps = _runs(rows)
    type_gap = _gap_for_type(mask, cells_per_inch or DEFAULT_CELLS_PER_INCH)
    min_col_gap = max(min_col_gap, type_gap)
    narrow = None
    if cells_per_inch:
        line = type_gap / GUTTER_PER_LINE_HEIGHT
        narrow = NarrowGutter(
            max(1, round(NARROW_GUTTER_IN * cells_per_inch), round(type_gap / 4)),
            round(NARROW_MIN_SIDE_IN * cells_per_inch),
            max(round(NARROW_MIN_HEIGHT_IN * cells_per_inch), round(NARROW_MIN_LINES * line)),
            max(2, round(line)),
        )
    band = int(height * margin_band)
    typical = _typical_row_gap(mask, cells_per_inch or DEFAULT_CELLS_PER_INCH)
    ink = np.flatnonzero(rows)

    def set_apart(gap: tuple[int, int], own_height: int) -> bool:
        return gap[1] - gap[0] > max(1.5 * typical, 0.5 * own_height)

    top = gaps[0][0] if gaps and gaps[0][0] <= band and set_apart(gaps[0], gaps[0][0] - int(ink[0])) else 0
    body_start = gaps[0][1] if top else 0
    bottom = (
        gaps[-1][1]
        if gaps
        and gaps[-1][1] >= height - band
        and gaps[-1][1] > body_start
        and set_apart(gaps[-1], int(ink[-1]) + 1 - gaps[-1][1])
        else height
    )
    body_end = gaps[-1][0] if bottom < height else height
    out: list[Region] = []
    for y0, y1 in ((0, top), (body_start, body_end), (bottom, height)):
        if y1 <= y0:
            continue
        split = (
            margin_split(mask[y0:y1], cells_per_inch) if cells_per_inch and (y0, y1) == (body_start, body_end) else None
        )
        if split is None:
            out.extend(xy_cut(mask[y0:y1], min_col_gap, offset_y=y0, narrow=narrow, bands=bands))
        else:  # margin notes first (they are placed beside their items later), then the body
            out.extend(xy_cut(mask[y0:y1, :split], min_col_gap, offset_y=y0, narrow=narrow, bands=bands))
            out.extend(
                xy_cut(mask[y0:y1, split:], min_col_gap, offset_y=y0, narrow=narrow, offset_x=split, bands=bands)
            )
    return out


GUTTER_PER_LINE_HEIGHT = 1.2  # a gutter is wider than this many text-line heights
STRIP_IN = 0.5  # width of the strips a page's line height is measured in
DEFAULT_CELLS_PER_INCH = 50  # when the caller does not say
MAX_LINE_SHARE = 0.1  # taller bands of ink (share of the page's height) are drawings, not lines


def line_measures(mask: Mask, cells_per_inch: int) -> tuple[int, int]:
    """The page's typical gap between rows of ink and the height of its lines of text (cells)."""
    return _typical_row_gap(mask, cells_per_inch), round(_gap_for_type(mask, cells_per_inch) / GUTTER_PER_LINE_HEIGHT)


def _gap_for_type(mask: Mask, cells_per_inch: int) -> int:
    """The narrowest gutter the page's type allows: the space between two words grows with the
    type, so on a slide or a receipt in large letters it is wider than a fixed gutter. The median
    height of the bands of ink rows stands for its line height, measured in strips
    ``STRIP_IN`` wide: across the whole page, the lines of two columns whose baselines do not
    line up fill each other's gaps, so a column was one band, its height taken for a line's, and
    the gutter of a two-column exam sheet (0.4 in) became too narrow to cut."""
    width = max(1, round(STRIP_IN * cells_per_inch))
    strips = np.logical_or.reduceat(mask, np.arange(0, mask.shape[1], width), axis=1)
    limit = max(1, MAX_LINE_SHARE * mask.shape[0])
    heights: list[int] = []
    for strip in strips.T:
        padded = np.concatenate(([False], strip, [False]))
        edges = np.flatnonzero(padded[1:] != padded[:-1])
        bands = edges[1::2] - edges[0::2]
        heights.extend(int(h) for h in bands if h <= limit)
    return int(np.ceil(GUTTER_PER_LINE_HEIGHT * float(np.median(heights)))) if heights else 0


def _typical_row_gap(mask: Mask, cells_per_inch: int) -> int:
    """The median gap between rows of ink, measured in strips ``STRIP_IN`` wide, as the line height
    is (``_gap_for_type``): across the whole page, columns whose lines do not line up (a heading
    in one column shifts its lines against the next's) leave only slivers of gap between rows, so
    the page's typical gap was a sliver, and the first line of each column at the top of a
    newspaper's page was set apart by more than one and a half of it: a running head each."""
    width = max(1, round(STRIP_IN * cells_per_inch))
    strips = np.logical_or.reduceat(mask, np.arange(0, mask.shape[1], width), axis=1)
    # Each strip's first and last gaps left out: they may be the very gaps that set a head apart.
    inner = sorted(e - s for strip in strips.T for s, e in _runs(strip)[1:-1])
    return inner[len(inner) // 2] if inner else 0


def _any_band_has_gutter(
    sub: Mask, gaps: list[tuple[int, int]], min_col_gap: int, bands_through: int = GUTTER_BANDS
) -> bool:
    """Whether ``bands_through`` bands of rows next to each other between ``gaps`` each have a run of
    at least ``min_col_gap`` empty columns between their ink, the runs sharing at least half that
    width: columns go down more than one line. A lone wide gap is a gap between words (a short
    justified line in a newspaper's narrow column), and cutting there read each line of the column
    as a region of its own. With more than two ``bands_through``, fewer bands are enough when their
    shared gap or their height is beyond a justified column's (``WIDE_GUTTER_GAPS``). All bands at
    once (their column profiles in one reduction): a page of text lines has dozens of bands, and
    numpy calls per band cost more than the cut itself."""
    starts = [0, *[end for _, end in gaps]]
    profiles = np.logical_or.reduceat(sub, starts, axis=0)
    rows, cols = np.nonzero(profiles)
    wide = np.flatnonzero((rows[1:] == rows[:-1]) & (np.diff(cols) > min_col_gap))
    if wide.size == 0:
        return False
    gutters = np.zeros(profiles.shape, dtype=bool)
    for i in wide:
        gutters[rows[i], cols[i] + 1 : cols[i + 1]] = True
    enough = max(1, min_col_gap // 2)
    if bands_through <= GUTTER_BANDS:
        return bool(np.any(_shared(gutters, bands_through) >= enough))
    if _aligned_gutter(profiles, gutters, bands_through, enough):
        return True
    if _wide_gutter_down(gutters, WIDE_GUTTER_GAPS * min_col_gap, enough, bands_through):
        return True
    heights = np.array([start for start, _ in gaps] + [sub.shape[0]]) - np.array(starts)
    tall = bands_through * float(np.median(heights))
    for fewer in range(1, min(bands_through, len(heights) + 1)):
        height = np.convolve(heights, np.ones(fewer, dtype=int), mode="valid")
        if np.any((_shared(gutters, fewer) >= enough) & (height >= tall)):
            return True
    return False


def _aligned_gutter(profiles: Mask, gutters: Mask, bands_through: int, enough: int) -> bool:
    """Whether ``bands_through`` bands next to each other share a gap (``enough`` columns) with a
    straight edge beside it: the ink right of it starts, or the ink left of it ends, in the same
    column (within ``EDGE_SLACK``) in all of them, as a column's lines do. A river of spaces down a
    justified column is ragged on both sides (the made newspaper of test_newspaper_paragraphs:
    "regards   disclaiming" was read as two columns of one word)."""
    through = _through(gutters, bands_through)
    columns = np.arange(profiles.shape[1])
    for window in np.flatnonzero(np.count_nonzero(through, axis=1) >= enough):
        common = through[window]
        first, last = int(np.argmax(common)), profiles.shape[1] - 1 - int(np.argmax(common[::-1]))
        bands = profiles[window : window + bands_through]
        starts = np.where(bands & (columns > last), columns, profiles.shape[1]).min(axis=1)
        ends = np.where(bands & (columns < first), columns, -1).max(axis=1)
        if np.ptp(starts) <= EDGE_SLACK or np.ptp(ends) <= EDGE_SLACK:
            return True
    return False


def _wide_gutter_down(gutters: Mask, wide: int, enough: int, bands_through: int) -> bool:
    """Whether two bands next to each other share a gap ``wide`` columns wide that ``bands_through``
    bands in all have a part of (``enough`` columns), whatever lies between them: code beside its
    output leaves bands with nothing on one side (lshort-zh p. 51), while two lines of code with a
    comment each have the comments' gap to themselves (gnuplot p. 49, read code then comments)."""
    pairs = _through(gutters, 2)
    for pair in np.flatnonzero(np.count_nonzero(pairs, axis=1) >= wide):
        if np.count_nonzero(np.count_nonzero(gutters & pairs[pair], axis=1) >= enough) >= bands_through:
            return True
    return False


def _through(gutters: Mask, bands_through: int) -> Mask:
    """For each run of ``bands_through`` bands next to each other (by its first band), the empty
    columns between ink in every one of them."""
    bands = len(gutters)
    through = gutters[bands_through - 1 :].copy()
    for k in range(1, bands_through):
        through &= gutters[bands_through - 1 - k : bands - k]
    return through


def _shared(gutters: Mask, bands_through: int) -> npt.NDArray[np.intp]:
    """For each run of ``bands_through`` bands next to each other, how many empty columns lie
    between ink in every one of them."""
    counts: npt.NDArray[np.intp] = np.count_nonzero(_through(gutters, bands_through), axis=1)
    return counts


@dataclass(frozen=True)
class NarrowGutter:
    """A gutter narrower than ``min_col_gap`` still splits a region into columns when it runs
    through a tall block of text between two wide parts: word gaps of several lines seldom line up
    over ``min_height`` cells, and a bullet's gap has a narrow part on its left. A region with a
    gap between its rows of more than ``max_row_gap`` (a line's height) is cut across there first:
    a paragraph above two boxes side by side had a gap between two characters in line with the
    boxes' gutter, and was read half by half. All in cells."""

    width: int
    min_side: int
    min_height: int
    max_row_gap: int


def _gutters(sub: Mask, min_col_gap: int, narrow: NarrowGutter | None) -> tuple[list[tuple[int, int]], bool]:
    """The region's gutters, and whether it is to be cut across first (a narrow gutter runs down
    it, but so does a gap between rows wider than a line)."""
    runs = _runs(sub.any(axis=0))
    wide = [g for g in runs if g[1] - g[0] >= min_col_gap and _columns_either_side(sub, g, min_col_gap)]
    if wide or narrow is None or sub.shape[0] < narrow.min_height:
        return wide, False
    width = sub.shape[1]
    narrow_gutters = [
        g for g in runs if g[1] - g[0] >= narrow.width and g[0] >= narrow.min_side and width - g[1] >= narrow.min_side
    ]
    if narrow_gutters and any(e - s > narrow.max_row_gap for s, e in _runs(sub.any(axis=1))):
        return [], True
    return narrow_gutters, False


SHORT_SIDE_GUTTERS = 1.5  # gutters narrower than this many min_col_gap need lines on both sides


def _columns_either_side(sub: Mask, gutter: tuple[int, int], min_col_gap: int) -> bool:
    """Whether a gutter parts two columns: when it is barely wide enough, each side must hold
    ink in two rows or more (one line alone is not cut there either). A paragraph's long first
    line over short ones leaves a gap of that width between two words of the first line (after a
    stop, before a thin "一"), and its end was cut off as a column of its own."""
    if gutter[1] - gutter[0] >= SHORT_SIDE_GUTTERS * min_col_gap:
        return True
    return all(_runs(side.any(axis=1)) for side in (sub[:, : gutter[0]], sub[:, gutter[1] :]))


def _cut(
    mask: Mask,
    r: Region,
    min_col_gap: int,
    out: list[Region],
    depth: int,
    narrow: NarrowGutter | None = None,
    bands: int = GUTTER_BANDS,
) -> None:
    sub = mask[r.y0 : r.y1, r.x0 : r.x1]
    gutters, across_first = _gutters(sub, min_col_gap, narrow)
    if gutters and depth > 0:
        s, e = max(gutters, key=lambda g: g[1] - g[0])
        for part in (Region(r.x0, r.y0, r.x0 + s, r.y1), Region(r.x0 + e, r.y0, r.x1, r.y1)):
            trimmed = _trim(mask, part)
            if trimmed is not None:
                _cut(mask, trimmed, min_col_gap, out, depth - 1, narrow, bands)
        return
    gaps = _runs(sub.any(axis=1))
    if not gaps or depth <= 0:
        out.append(r)
        return
    if not across_first and not _any_band_has_gutter(sub, gaps, min_col_gap, bands):
        out.append(r)  # a single column of rows: one region, its lines are found by the engine
        return
    s, e = _across(sub, gaps, min_col_gap, narrow, bands)
    for part in (Region(r.x0, r.y0, r.x1, r.y0 + s), Region(r.x0, r.y0 + e, r.x1, r.y1)):
        trimmed = _trim(mask, part)
        if trimmed is not None:
            _cut(mask, trimmed, min_col_gap, out, depth - 1, narrow, bands)


EDGE_GAPS = 3  # gaps from the top and from the bottom of a region tried before its widest


def _across(
    sub: Mask, gaps: list[tuple[int, int]], min_col_gap: int, narrow: NarrowGutter | None, bands: int = GUTTER_BANDS
) -> tuple[int, int]:
    """Where to cut a region across: under a few rows at its top that hold no columns (a title, a
    standfirst running across the columns) when the rest then parts at a gutter, or likewise over a
    few rows at its bottom; else at its widest gap between rows. Under a magazine's standfirst the
    widest gap was one where both columns happened to end a paragraph at the same height, and the
    upper halves of both columns were read before the lower ones. Only a few gaps from each edge
    are tried, and the large side only for a gutter: what runs across columns sits there, and
    trying every gap of a page of lines cost a quarter of the text layer's time."""
    for gap in gaps[:EDGE_GAPS]:
        if _one_column(sub[: gap[0]], min_col_gap, bands) and _gutters(sub[gap[1] :], min_col_gap, narrow)[0]:
            return gap
    for gap in reversed(gaps[-EDGE_GAPS:]):
        if _one_column(sub[gap[1] :], min_col_gap, bands) and _gutters(sub[: gap[0]], min_col_gap, narrow)[0]:
            return gap
    return max(gaps, key=lambda g: g[1] - g[0])


def _one_column(part: Mask, min_col_gap: int, bands: int = GUTTER_BANDS) -> bool:
    """Whether no rows of a part stand in columns."""
    return not _any_band_has_gutter(part, _runs(part.any(axis=1)), min_col_gap, bands)
