"""Find ruled tables from masks of horizontal and vertical rules and recover their cell structure.

Rules come from long ink runs on a rendered page, or from vector strokes drawn onto a mask for
born-digital PDFs, so one grid builder serves both paths. A missing stretch of rule between two
neighbouring grid cells means the cells are merged (row or column span).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ocrqueue.documents.layout.xycut import Mask


@dataclass(frozen=True)
class Segment:
    """A rule: ``pos`` is its centre across the rule, ``start``..``end`` its extent along it."""

    pos: int
    start: int
    end: int
    thickness: int


@dataclass(frozen=True)
class GridCell:
    row: int
    col: int
    row_span: int
    col_span: int
    x0: int
    y0: int
    x1: int
    y1: int


@dataclass(frozen=True)
class TableGrid:
    x0: int
    y0: int
    x1: int
    y1: int
    n_rows: int
    n_cols: int
    cells: tuple[GridCell, ...]


def long_runs(ink: Mask, min_len: int, axis: int) -> Mask:
    """Pixels belonging to a run of at least ``min_len`` ink pixels along ``axis`` (1: rows).

    A morphological opening with a line-shaped kernel; OpenCV's runs in time independent of the
    kernel length, about 20 times faster than cumulative sums on a 200 dpi page."""
    if ink.shape[axis] < min_len:
        return np.zeros_like(ink)
    kernel = np.ones((1, min_len) if axis == 1 else (min_len, 1), dtype=np.uint8)
    last = (min_len - 1, 0) if axis == 1 else (0, min_len - 1)
    # Erode with the window starting at each pixel, dilate with it ending there: an exact opening
    # (OpenCV's centred anchor shifts even-length kernels by a pixel).
    starts = cv2.erode(ink.view(np.uint8), kernel, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    opened = cv2.dilate(starts, kernel, anchor=last, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    result: Mask = np.asarray(opened).astype(bool)
    return result


def _segments(rules: Mask, axis: int) -> list[Segment]:
    """Group rule pixels into segments: bands of consecutive rows (axis=1) or columns (axis=0),
    cut where the pixels along the band stop. A segment's place is the middle of its own pixels,
    not of the band's: a band runs on wherever any pixel is, and a slide's vertical rule one pixel
    beside the stroke of a title letter far above it was placed 19 pixels off, in the middle of
    the two, where no rule runs; the rows of the table were then read as one cell across two
    columns. Its thickness stays the band's, which ``find_tables`` weighs strokes of large type
    by (measured so: the box of a slide title's 固 is as thin as a rule on its own)."""
    a = rules if axis == 1 else rules.T
    present = a.any(axis=1)
    out: list[Segment] = []
    idx = np.flatnonzero(present)
    if idx.size == 0:
        return out
    breaks = np.flatnonzero(np.diff(idx) > 1)
    for lo, hi in zip(np.concatenate(([0], breaks + 1)), np.concatenate((breaks, [idx.size - 1])), strict=True):
        b0, b1 = int(idx[lo]), int(idx[hi]) + 1
        along = a[b0:b1].any(axis=0)
        cols = np.flatnonzero(along)
        gaps = np.flatnonzero(np.diff(cols) > 3)
        for s, e in zip(np.concatenate(([0], gaps + 1)), np.concatenate((gaps, [cols.size - 1])), strict=True):
            start, end = int(cols[s]), int(cols[e]) + 1
            across = np.flatnonzero(a[b0:b1, start:end].any(axis=1))
            lo_px, hi_px = b0 + int(across[0]), b0 + int(across[-1]) + 1
            out.append(Segment((lo_px + hi_px) // 2, start, end, b1 - b0))
    return out


def _cluster(values: list[int], tol: int) -> list[int]:
    out: list[int] = []
    for v in sorted(values):
        if out and v - out[-1] <= tol:
            continue
        out.append(v)
    return out


class _Union:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


FORM_MAX_FILL = 0.5  # share of a grid's places its cells stand in, at most, for a form's boxes


def is_form(n_rows: int, n_cols: int, n_cells: int) -> bool:
    """Whether a ruled grid of ``n_cells`` cells is a form's boxes rather than a table: its cells
    stand in fewer than ``FORM_MAX_FILL`` of its rows x columns places. Most of a form's cells
    span several, because each row is cut into boxes its own way (a field's label and box, then
    a row of check boxes, then a box across the page); a table's rows share their columns
    (dev split: every tagged table fills 0.73 or more of its grid; the forms of Acrobat, of a
    Quartz slide and of the IRS and the DoD 0.08-0.43)."""
    return n_cells < FORM_MAX_FILL * n_rows * n_cols


OPEN_EDGE_RULES = 2  # horizontal rules that must run past the outer vertical rule for an open side
OPEN_TABLE_MIN_ROWS = 3  # horizontal rules a table with one vertical rule (two open sides) needs


def find_tables(h_rules: Mask, v_rules: Mask, tol: int, thickest: int | None = None) -> list[TableGrid]:
    """Tables formed by horizontal and vertical rules that cross each other. A table may be open
    at its sides (only the rules between columns drawn, as DocBook and LaTeX often set them): its
    horizontal rules then reach past the outermost vertical rule, and their ends are its edges.
    With ``thickest``, a group none of whose horizontal or none of whose vertical rules is that
    thin is no table: the strokes of large bold type (a slide title's 固 is a box round 古) and a
    filled logo cross as a table's rules do, at several times a rule's weight."""
    hs = _segments(h_rules, axis=1)
    vs = _segments(v_rules, axis=0)
    if len(hs) < 2 or not vs:
        return []
    uf = _Union(len(hs) + len(vs))
    for i, h in enumerate(hs):
        for j, v in enumerate(vs):
            if h.start - tol <= v.pos <= h.end + tol and v.start - tol <= h.pos <= v.end + tol:
                uf.join(i, len(hs) + j)
    groups: dict[int, tuple[list[Segment], list[Segment]]] = {}
    for i, h in enumerate(hs):
        groups.setdefault(uf.find(i), ([], []))[0].append(h)
    for j, v in enumerate(vs):
        groups.setdefault(uf.find(len(hs) + j), ([], []))[1].append(v)
    tables = [
        _grid(g_h, g_v, h_rules, v_rules, tol)
        for g_h, g_v in groups.values()
        if len(g_h) >= 2 and (thickest is None or (_thinnest(g_h) <= thickest and _thinnest(g_v) <= thickest))
    ]
    return [t for t in tables if t is not None]


def _thinnest(segments: list[Segment]) -> int:
    return min((s.thickness for s in segments), default=0)


def _covered(rules: Mask, lo: int, hi: int, across0: int, across1: int, vertical: bool, tol: int) -> bool:
    """Whether a rule runs along most of [lo, hi) near position band [across0, across1)."""
    lo, hi = lo + tol, hi - tol
    if hi <= lo:
        return True
    band = rules[lo:hi, across0:across1] if vertical else rules[across0:across1, lo:hi].T
    return bool(band.any(axis=1).mean() >= 0.6)


def _column_edges(hs: list[Segment], vs: list[Segment], tol: int) -> list[int]:
    """x of the column edges: the vertical rules, plus the ends of the horizontal rules where
    enough of them run on past the outermost vertical rule (a side without a rule of its own)."""
    xs = _cluster([v.pos for v in vs], tol)
    reach = 3 * tol
    lefts = sorted(h.start for h in hs if h.start < xs[0] - reach)
    rights = sorted(h.end for h in hs if h.end > xs[-1] + reach)
    open_left, open_right = len(lefts) >= OPEN_EDGE_RULES, len(rights) >= OPEN_EDGE_RULES
    if len(xs) == 1 and not (open_left and open_right and len(hs) >= OPEN_TABLE_MIN_ROWS):
        return xs  # one vertical rule crossing a few horizontal ones is not a table
    if open_left:
        xs.insert(0, lefts[len(lefts) // 2])
    if open_right:
        xs.append(rights[len(rights) // 2])
    return xs


def _grid(hs: list[Segment], vs: list[Segment], h_rules: Mask, v_rules: Mask, tol: int) -> TableGrid | None:
    if not vs:
        return None
    ys = _cluster([h.pos for h in hs], tol)
    xs = _column_edges(hs, vs, tol)
    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    if n_rows < 1 or n_cols < 1:
        return None
    half = max(tol, 2)
    uf = _Union(n_rows * n_cols)
    for r in range(n_rows):
        for c in range(n_cols):
            if c + 1 < n_cols and not _covered(
                v_rules, ys[r], ys[r + 1], xs[c + 1] - half, xs[c + 1] + half, True, tol
            ):
                uf.join(r * n_cols + c, r * n_cols + c + 1)
            if r + 1 < n_rows and not _covered(
                h_rules, xs[c], xs[c + 1], ys[r + 1] - half, ys[r + 1] + half, False, tol
            ):
                uf.join(r * n_cols + c, (r + 1) * n_cols + c)
    members: dict[int, list[tuple[int, int]]] = {}
    for r in range(n_rows):
        for c in range(n_cols):
            members.setdefault(uf.find(r * n_cols + c), []).append((r, c))
    cells = []
    for group in members.values():
        r0, r1 = min(r for r, _ in group), max(r for r, _ in group)
        c0, c1 = min(c for _, c in group), max(c for _, c in group)
        cells.append(GridCell(r0, c0, r1 - r0 + 1, c1 - c0 + 1, xs[c0], ys[r0], xs[c1 + 1], ys[r1 + 1]))
    cells.sort(key=lambda cell: (cell.row, cell.col))
    return TableGrid(xs[0], ys[0], xs[-1], ys[-1], n_rows, n_cols, tuple(cells))
