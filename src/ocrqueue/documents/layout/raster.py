"""Layout analysis of a straightened page (layout/straighten.py): ruled tables and text regions.

All work happens on numpy arrays, on the page's coarse ink grid where it can, so that this step
takes a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from ocrqueue.documents.geometry import share_inside
from ocrqueue.documents.layout.blocks import MARGIN_BAND
from ocrqueue.documents.layout.column_slices import rejoin_slices
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.layout.straighten import GRID_DPI, Straightened, coarse
from ocrqueue.documents.layout.tables import TableGrid, find_tables, is_form, long_runs
from ocrqueue.documents.layout.xycut import RENDERED_GUTTER_BANDS, Mask, Region, line_measures, xy_cut_page

MIN_GUTTER_IN = 0.2
H_RULE_MIN_IN = 0.5
V_RULE_MIN_IN = 0.2
# A table has rules this thin (3 points) among its horizontal and among its vertical ones.
RULE_MAX_THICK_IN = 0.042
# A detected figure with less ink than this (share of grid cells) is scanner noise or empty paper.
MIN_FIGURE_INK = 0.03


IslandKind = Literal["table", "figure", "formula"]


@dataclass(frozen=True)
class Island:
    """A non-text area placed in the reading order: a ruled table (with its grid), or a figure or
    formula found by the layout model (a figure holding a ruled grid has it too). Boxes are in
    full-resolution pixels."""

    kind: IslandKind
    box: tuple[int, int, int, int]
    grid: TableGrid | None = None


@dataclass(frozen=True)
class RasterLayout:
    """Text regions in reading order, islands each placed before the text region of the same index
    in ``regions`` (``island_after``; len(regions) means at the end), and the rule pixels. A
    region inside a form's box has the box's number in ``form_boxes`` (a number per region, -1
    outside forms; empty: no forms on the page)."""

    regions: list[tuple[int, int, int, int]]
    islands: list[Island]
    island_after: list[int]
    rules: Mask
    form_boxes: tuple[int, ...] = ()


# The layout of a straightened page: its regions and islands, and what the layout model saw on it
# (None: the model was not run).
PageLayout = tuple[RasterLayout, list[LayoutBox] | None]


@dataclass(frozen=True)
class Rules:
    """The page's ruling lines (pixels) and the table grids they form."""

    mask: Mask
    grids: list[TableGrid]


def find_rules(page: Straightened, dpi: int) -> Rules:
    """Horizontal and vertical rules, and the ruled tables they make up."""
    factor = max(1, round(dpi / GRID_DPI))
    h_rules = _rules_not_headlines(
        _long_runs_near(page, factor, max(8, int(H_RULE_MIN_IN * dpi)), axis=1), page.ink, dpi
    )
    # A table needs two horizontal rules: without them the vertical pass is not worth its time.
    two_rows = np.count_nonzero(np.diff(h_rules.any(axis=1).astype(np.int8), prepend=0) == 1) >= 2
    if not two_rows:
        return Rules(h_rules, [])
    v_rules = _long_runs_near(page, factor, max(8, int(V_RULE_MIN_IN * dpi)), axis=0)
    tol = max(3, dpi // 40)
    v_rules = _rules_not_stems(v_rules, h_rules, int(H_RULE_MIN_IN * dpi), tol)
    thickest = max(3, round(RULE_MAX_THICK_IN * dpi))
    grids = find_tables(h_rules, v_rules, tol=tol, thickest=thickest)
    faint = _faint_row_rules(page.gray, grids, max(3, round(FAINT_MAX_THICK_IN * dpi)))
    if faint.any():
        h_rules |= faint
        grids = find_tables(h_rules, v_rules, tol=tol, thickest=thickest)
    return Rules(h_rules | v_rules, grids)


FAINT_BELOW_PAPER = 20  # grey levels under the paper's: a hairline rule, anti-aliased over two rows
FAINT_SMOOTH = 9  # pixels along a row averaged before the comparison
FAINT_ACROSS = 0.9  # of a table's width a faint rule runs, at least
FAINT_MAX_THICK_IN = 0.012  # a faint rule is at most this thick: a band of grey any wider is a shaded row


def _faint_row_rules(gray: npt.NDArray[np.uint8], grids: list[TableGrid], thickest: int) -> Mask:
    """Rules between a ruled table's rows too faint for the page's ink threshold: LibreOffice draws
    a table's inner rules as grey hairlines, which a 300-dpi render spreads over two rows of
    pixels (grey 190 and 190 where ink begins at 127), so rows without a rule found were read as
    one ("2 3 | You may not impose Author and publisher a"). Looked for only inside tables already
    found, where a thin run across the table's width can be nothing else; a shaded row (a band of
    grey taller than ``thickest`` pixels) is no rule, and its text must not be painted out."""
    out = np.zeros(gray.shape, dtype=bool)
    for grid in grids:
        box = gray[grid.y0 : grid.y1 + 1, grid.x0 : grid.x1 + 1]
        if box.size == 0:
            continue
        paper = int(np.median(box))
        smooth = cv2.blur(box, (FAINT_SMOOTH, 1))  # a scan's noise averaged out along the row
        runs = long_runs(smooth <= paper - FAINT_BELOW_PAPER, int(FAINT_ACROSS * box.shape[1]), axis=1)
        _, labels, stats, _ = cv2.connectedComponentsWithStats(runs.view(np.uint8), connectivity=8)
        thin = stats[:, cv2.CC_STAT_HEIGHT] <= thickest
        thin[0] = False
        out[grid.y0 : grid.y1 + 1, grid.x0 : grid.x1 + 1] = thin[labels]
    return out


# The headline of a script that hangs its letters from a line (Devanagari's shirorekha; Bengali's
# and Gurmukhi's too) runs as far as a rule under a long word (0.5 in at 11 pt), and was painted out
# before the engine read the page: the words came apart into their letters' lower halves, which
# the Devanagari model read as Latin junk or digits ("प्रणालीसँग अन्तरक्रिया" as "yuni Aaisha"; dev
# gnome-control-center ne p. 1 scanned, CER 0.18, 0.01 read bare). A run is a headline when the ink
# joined to it, and in no run itself, hangs below it (from ``HEADLINE_GAP_IN`` to
# ``HEADLINE_DEPTH_IN`` under it) along a share of its length within ``HEADLINE_BELOW``, while the
# ink joined to it above it does so along less than ``HEADLINE_ABOVE`` (a run through the middle
# of a line of text or a drawing has ink on both sides), and it is no thicker than a rule. The 148
# headlines of 0.5 in or more on the dev Devanagari pages, clean and scanned, hang along 0.54-0.83
# of their length, 0.41 at most above; letters leave gaps between them, so ink along nearly all of
# a run is a shape under it (the top of a filled table header with its white title, a dev
# Brazilian bill: 1.0); a ruled table's rules hang only where its vertical rules cross them.
HEADLINE_GAP_IN = 0.01
HEADLINE_DEPTH_IN = 0.05
HEADLINE_BELOW = (0.5, 0.9)
HEADLINE_ABOVE = 0.5


def _rules_not_headlines(h_rules: Mask, ink: Mask, dpi: int) -> Mask:
    """The horizontal runs that are not the headline of a line of letters hanging from it."""
    if not h_rules.any():
        return h_rules
    count, labels, stats, _ = cv2.connectedComponentsWithStats(h_rules.view(np.uint8), connectivity=8)
    gap, depth = max(1, round(HEADLINE_GAP_IN * dpi)), max(3, round(HEADLINE_DEPTH_IN * dpi))
    thickest = max(3, round(RULE_MAX_THICK_IN * dpi))
    out = h_rules.copy()
    for i in range(1, count):
        x, y, w, h = (int(v) for v in stats[i, :4])
        if h > thickest:
            continue
        own = labels[y : y + h, x : x + w] == i
        low, high = HEADLINE_BELOW
        if not low <= _hanging(ink, h_rules, own, (x, y), (gap, depth), below=True) < high:
            continue
        if _hanging(ink, h_rules, own, (x, y), (gap, depth), below=False) >= HEADLINE_ABOVE:
            continue
        out[y : y + h, x : x + w] &= ~own
    return out


def _hanging(ink: Mask, h_rules: Mask, own: Mask, at_xy: tuple[int, int], reach: tuple[int, int], below: bool) -> float:
    """The share of a run's columns (``own``, its pixels in its box at ``at_xy``) where ink joined
    to it and in no horizontal run (``h_rules``) lies ``reach`` (gap, depth) pixels below it
    (``below``) or above it: a double rule's other line (LaTeX's ``\\hline\\hline``, joined to it
    by the vertical rules or an arrow's head) is a run, a letter hanging from a headline is not."""
    (x, y), (gap, depth) = at_xy, reach
    h, w = own.shape
    if below:
        top, bottom = y, min(ink.shape[0], y + h + gap + depth)
        at, band = 0, slice(h + gap, None)
    else:
        top, bottom = max(0, y - gap - depth), y + h
        at, band = y - top, slice(0, max(0, y - top - gap))
    region = np.ascontiguousarray(ink[top:bottom, x : x + w]).view(np.uint8)
    _, joined = cv2.connectedComponents(region, connectivity=8)
    touching = np.unique(joined[at : at + h][own])
    hangs = np.isin(joined[band], touching[touching > 0]) & ~h_rules[top:bottom, x : x + w][band]
    return float(hangs.any(axis=0).mean()) if hangs.size else 0.0


def _rules_not_stems(v_rules: Mask, h_rules: Mask, long: int, tol: int) -> Mask:
    """The vertical runs that are rules: those that meet a horizontal rule (within ``tol``), as a
    table's do, or that are ``long``. The stems and bowls of large bold type run as far as the
    shortest rule (0.2 in: an invoice's 19-point bold title), and were painted out before the
    engine read them ("Invoice 26961" read "Nvoice 2(0(5°.")."""
    if not v_rules.any():
        return v_rules
    count, labels, stats, _ = cv2.connectedComponentsWithStats(v_rules.view(np.uint8), connectivity=8)
    near_h = cv2.dilate(h_rules.view(np.uint8), np.ones((2 * tol + 1, 2 * tol + 1), np.uint8)).view(bool)
    keep = np.zeros(count, dtype=bool)
    keep[np.unique(labels[near_h & v_rules])] = True
    keep |= stats[:, cv2.CC_STAT_HEIGHT] >= long
    keep[0] = False
    kept: Mask = keep[labels]
    return kept


def _long_runs_near(page: Straightened, factor: int, min_len: int, axis: int) -> Mask:
    """``long_runs`` of the page, looked for only in the bands of rows (axis 1) or columns
    (axis 0) where the coarse cells with any ink hold a run nearly as long: most of a page has
    none, and the full-resolution pass over the whole page cost more than the rest of the layout
    analysis. Not the grid's quarter-ink cells: a thin rule across two rows of them is in neither
    (Debian Reference p. 124 lost three of its nine)."""
    out = np.zeros_like(page.ink)
    near = long_runs(page.touched, max(2, min_len // factor - 2), axis).any(axis=axis)
    padded = np.concatenate(([False], near, [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    for start, end in zip(edges[0::2], edges[1::2], strict=True):
        lo, hi = max(0, (int(start) - 1) * factor), (int(end) + 1) * factor
        if axis == 1:
            out[lo:hi] = long_runs(page.ink[lo:hi], min_len, axis)
        else:
            out[:, lo:hi] = long_runs(page.ink[:, lo:hi], min_len, axis)
    return out


def _ink_share(grid: Mask, box: tuple[int, int, int, int], factor: int) -> float:
    sub = grid[box[1] // factor : -(-box[3] // factor), box[0] // factor : -(-box[2] // factor)]
    return float(sub.mean()) if sub.size else 0.0


def analyse(
    page: Straightened,
    rules: Rules | None,
    dpi: int,
    detected: list[tuple[IslandKind, tuple[int, int, int, int]]] | None = None,
) -> RasterLayout:
    """Text regions and islands from the page's ink and its ``rules`` (None: tables are not
    looked for); ``detected`` adds figures, formulas and unruled tables from a layout model. A
    ruled grid lying inside a detected figure is the figure's ``grid``: a chart's, or a table's
    the model took for a picture, told apart by the words read in its cells (ocr/assemble.py)."""
    islands = [Island(kind, box) for kind, box in detected or [] if kind != "table"]
    rule_mask = rules.mask if rules is not None else np.zeros_like(page.ink)
    forms: list[TableGrid] = []
    if rules is not None:
        # A grid of one column is a box round text (a listing, an example), read as text.
        for t in (t for t in rules.grids if t.n_cols > 1):
            box = (t.x0, t.y0, t.x1, t.y1)
            figures = [k for k, i in enumerate(islands) if i.kind == "figure" and share_inside(box, i.box) > 0.5]
            holder = figures[0] if figures else None
            if holder is not None:
                # A chart's grid, or a table the model took for a picture: told apart once read.
                if islands[holder].grid is None:
                    islands[holder] = replace(islands[holder], grid=t)
            elif is_form(t.n_rows, t.n_cols, len(t.cells)):
                forms.append(t)
            else:
                islands.append(Island("table", box, t))
        # Tables the model sees without a ruled grid (whitespace or booktabs style) keep no grid:
        # their columns are found from word positions after OCR.
        ruled = [i.box for i in islands if i.kind == "table"] + [_box(f) for f in forms]
        for kind, box in detected or []:
            if kind == "table" and not any(share_inside(box, r) > 0.3 or share_inside(r, box) > 0.3 for r in ruled):
                islands.append(Island("table", box))
    islands = _apart(islands)
    # A form owns its boxes, as a ruled table its cells: what the model saw in it is its text.
    islands = [i for i in islands if not any(share_inside(i.box, _box(f)) > ISLAND_MAX_OVERLAP for f in forms)]
    factor = max(1, round(dpi / GRID_DPI))
    if islands or rule_mask.any():
        text_ink = page.ink & ~rule_mask
        for island in islands:
            x0, y0, x1, y1 = island.box
            text_ink[y0:y1, x0:x1] = False
        text_grid = coarse(text_ink, factor)
    else:
        text_grid = page.grid  # nothing to take out: the page's own coarse ink
    islands = [i for i in islands if i.kind != "figure" or _ink_share(page.grid, i.box, factor) >= MIN_FIGURE_INK]
    grid = text_grid.copy()
    for x0, y0, x1, y1 in [i.box for i in islands] + [_box(f) for f in forms]:
        grid[y0 // factor : -(-y1 // factor), x0 // factor : -(-x1 // factor)] = True
    leaves = xy_cut_page(grid, max(2, int(MIN_GUTTER_IN * GRID_DPI)), MARGIN_BAND, GRID_DPI, RENDERED_GUTTER_BANDS)
    leaves = rejoin_slices(leaves, *line_measures(grid, GRID_DPI))
    return _place(leaves, islands, factor, text_grid, rule_mask, forms)


def _box(grid: TableGrid) -> tuple[int, int, int, int]:
    return grid.x0, grid.y0, grid.x1, grid.y1


def _form_regions(
    regions: list[tuple[int, int, int, int]], boxed: dict[int, int], form: TableGrid, text_grid: Mask, factor: int
) -> None:
    """A form's text regions: box by box, row by row and left to right (the grid's cells in
    order), each box cut by XY-cut like a page. Read as one table, a tax form's boxes that span
    many rows of the grid held many lines each, their words sorted as blocks: "Attach Schedule D
    if If not check here Capital gain or (loss). (Form 1040) required. required,"; read as one
    text region, a form's boxes side by side were read across, label after label."""
    gutter = max(2, int(MIN_GUTTER_IN * GRID_DPI))
    for cell in form.cells:
        # Inside the box's rules: their fringe is left in the text ink.
        x0, y0 = cell.x0 // factor + 1, cell.y0 // factor + 1
        x1, y1 = -(-cell.x1 // factor) - 1, -(-cell.y1 // factor) - 1
        if x1 <= x0 or y1 <= y0 or not text_grid[y0:y1, x0:x1].any():
            continue
        first = len(regions)
        for leaf in xy_cut_page(text_grid[y0:y1, x0:x1], gutter, 0.0, GRID_DPI, RENDERED_GUTTER_BANDS):
            part = Region(x0 + leaf.x0, y0 + leaf.y0, x0 + leaf.x1, y0 + leaf.y1)
            _add_text(regions, text_grid, part, factor)
        number = len(set(boxed.values()))
        boxed.update((k, number) for k in range(first, len(regions)))


ISLAND_PRIORITY = {"table": 0, "formula": 1, "figure": 2}
ISLAND_MAX_OVERLAP = 0.5


def _apart(islands: list[Island]) -> list[Island]:
    """Islands that do not cover one another: where two do (the layout model calls one box both a
    figure and a formula, or a formula sits in a ruled box), a ruled table is kept before a table
    the model found, then a formula, then a figure, the larger first. Each island is read on its
    own, so two over one area gave its text twice."""
    ranked = sorted(
        islands,
        key=lambda i: (
            i.kind != "table" or i.grid is None,
            ISLAND_PRIORITY[i.kind],
            -(i.box[2] - i.box[0]) * (i.box[3] - i.box[1]),
        ),
    )
    kept: list[Island] = []
    for island in ranked:
        if not any(
            max(share_inside(island.box, k.box), share_inside(k.box, island.box)) > ISLAND_MAX_OVERLAP for k in kept
        ):
            kept.append(island)
    return kept


def _place(
    leaves: list[Region], islands: list[Island], factor: int, text_grid: Mask, rules: Mask, forms: list[TableGrid]
) -> RasterLayout:
    """Cut each leaf around the islands and forms inside it, so text above an island reads before
    it and text below after it; a leaf without text of its own is just its islands. A form's
    place is taken by its boxes' text regions (``_form_regions``)."""
    regions: list[tuple[int, int, int, int]] = []
    after: dict[int, int] = {}
    boxed: dict[int, int] = {}  # region: its form box's number
    forms_left = list(forms)
    for leaf in leaves:
        box = (leaf.x0 * factor, leaf.y0 * factor, leaf.x1 * factor, leaf.y1 * factor)
        inside = _side_by_side_left_first(
            sorted(
                (i for i, isl in enumerate(islands) if i not in after and share_inside(isl.box, box) > 0.5),
                key=lambda i: islands[i].box[1],
            ),
            islands,
        )
        here = [f for f in forms_left if share_inside(_box(f), box) > 0.5]
        forms_left = [f for f in forms_left if f not in here]
        # Islands in their order, each form before the first island below its top.
        steps: list[tuple[int, int, int, TableGrid | None]] = [
            (islands[i].box[1], islands[i].box[3], i, None) for i in inside
        ]
        for f in sorted(here, key=lambda f: f.y0):
            at = next((n for n, step in enumerate(steps) if step[3] is None and step[0] > f.y0), len(steps))
            steps.insert(at, (f.y0, f.y1, -1, f))
        top = leaf.y0
        for y0, y1, i, form in steps:
            _add_text(regions, text_grid, Region(leaf.x0, top, leaf.x1, y0 // factor), factor)
            if form is None:
                left, right = _beside(leaf, [islands[k].box for k in inside], islands[i].box, top, factor)
                if left is not None:
                    _add_text(regions, text_grid, left, factor)
                after[i] = len(regions)
                _add_text(regions, text_grid, right, factor)
            else:
                _form_regions(regions, boxed, form, text_grid, factor)
            top = max(top, -(-y1 // factor))
        _add_text(regions, text_grid, Region(leaf.x0, top, leaf.x1, leaf.y1), factor)
    placed = {i: n for n, i in enumerate(after)}  # the order islands were met in, leaf by leaf
    order = sorted(range(len(islands)), key=lambda i: (after.get(i, len(regions)), placed.get(i, 0), islands[i].box[1]))
    form_boxes = tuple(boxed.get(k, -1) for k in range(len(regions))) if boxed else ()
    return RasterLayout(
        regions, [islands[i] for i in order], [after.get(i, len(regions)) for i in order], rules, form_boxes
    )


def _beside(
    leaf: Region, boxes: list[tuple[int, int, int, int]], box: tuple[int, int, int, int], top: int, factor: int
) -> tuple[Region | None, Region]:
    """The parts of ``leaf`` (cells) left and right of the island ``box`` (pixels, one of the
    leaf's ``boxes``), over the island's rows from ``top`` on: text there is read before and after
    the island. The leaf's rows are cut at the island's top and bottom, and a listing beside the
    output the layout model took for a figure, with a gap too narrow for a gutter, was lost
    (lshort-zh p. 43). The right part stops at the next island beside it, and a left part is only
    looked for when no island lies left of this one: the text between two islands is read once."""
    y0, y1 = max(top, box[1] // factor), -(-box[3] // factor)
    level = [b for b in boxes if b != box and b[1] < box[3] and box[1] < b[3]]
    right_end = min([b[0] // factor for b in level if b[0] >= box[2]], default=leaf.x1)
    right = Region(-(-box[2] // factor), y0, max(-(-box[2] // factor), right_end), y1)
    if any(b[2] <= box[0] for b in level):
        return None, right
    return Region(leaf.x0, y0, max(leaf.x0, box[0] // factor), y1), right


def _side_by_side_left_first(order: list[int], islands: list[Island]) -> list[int]:
    """Islands top to bottom, but of two side by side (most of their heights shared) the left
    one first: a LaTeX source box and its output, a pair of figures, start a few pixels apart."""
    order = list(order)
    for end in range(len(order) - 1, 0, -1):
        for j in range(end):
            a, b = islands[order[j]].box, islands[order[j + 1]].box
            shared = min(a[3], b[3]) - max(a[1], b[1])
            if shared > 0.5 * min(a[3] - a[1], b[3] - b[1]) and b[0] < a[0]:
                order[j], order[j + 1] = order[j + 1], order[j]
    return order


def _add_text(regions: list[tuple[int, int, int, int]], grid: Mask, part: Region, factor: int) -> None:
    if part.y1 <= part.y0:
        return
    sub = grid[part.y0 : part.y1, part.x0 : part.x1]
    rows = np.flatnonzero(sub.any(axis=1))
    if rows.size == 0:
        return
    cols = np.flatnonzero(sub.any(axis=0))
    regions.append(
        (
            (part.x0 + int(cols[0])) * factor,
            (part.y0 + int(rows[0])) * factor,
            (part.x0 + int(cols[-1]) + 1) * factor,
            (part.y0 + int(rows[-1]) + 1) * factor,
        )
    )
