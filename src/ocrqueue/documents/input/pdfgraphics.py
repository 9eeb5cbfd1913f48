"""What a PDF page draws besides text: every page object with the matrix from its own space to
the page (objects inside form XObjects report their bounds in the form's space), table rules, raster
images and vector drawings (charts, diagrams) as boxes in the displayed page's points.

Runs under the PDFium lock (the caller holds it).
"""

from __future__ import annotations

import ctypes
import itertools
from collections.abc import Iterator

import cv2
import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.drawn_bullets import is_mark
from ocrqueue.documents.input.pdfframe import PageFrame

Matrix = tuple[float, float, float, float, float, float]  # a, b, c, d, e, f as in PDF
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

# A stroke thinner than this (points) and longer than _MIN_RULE_LEN counts as a table rule.
RULE_MAX_THICKNESS = 3.0
MIN_RULE_LEN = 8.0
# A vector drawing: at least this many paths close together (a frame or a rule or two are not one),
# fewer than this share of them thin lines (a ruled table is all thin lines), within this distance.
DRAWING_MIN_PATHS = 8
DRAWING_MAX_RULE_SHARE = 0.8
DRAWING_LINK_PT = 4.0
_MAX_MASK_SIDE = 2000  # cells of the mask paths are clustered on


def _then(inner: Matrix, outer: Matrix) -> Matrix:
    """``inner`` followed by ``outer`` (row vectors, as PDF composes them)."""
    a, b, c, d, e, f = inner
    p, q, r, s, t, u = outer
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s, e * p + f * r + t, e * q + f * s + u)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _bounds(obj: pdfium.PdfObject, outer: Matrix) -> tuple[float, float, float, float]:
    """The object's bounds in page space (left, bottom, right, top)."""
    left, bottom, right, top = obj.get_bounds()
    corners = [_apply(outer, x, y) for x in (left, right) for y in (bottom, top)]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return min(xs), min(ys), max(xs), max(ys)


Placed = tuple[pdfium.PdfObject, Matrix, int]


def page_objects(page: pdfium.PdfPage, max_depth: int = 8) -> Iterator[Placed]:
    """Every object with the matrix from the space its bounds are in to the page, and its depth
    (0: on the page itself)."""

    def walk(
        objects: Iterator[pdfium.PdfObject], outer: Matrix, depth: int
    ) -> Iterator[tuple[pdfium.PdfObject, Matrix, int]]:
        for obj in objects:
            yield obj, outer, depth
            if obj.type == pdfium_c.FPDF_PAGEOBJ_FORM and depth < max_depth:
                inner = _then(tuple(obj.get_matrix().get()), outer)
                yield from walk(page.get_objects(form=obj, max_depth=0), inner, depth + 1)

    yield from walk(page.get_objects(max_depth=0), IDENTITY, 0)


def vector_rules(page: pdfium.PdfPage, frame: PageFrame) -> list[BBox]:
    """Axis-aligned straight path segments and thin filled rectangles, in top-left point space."""
    rules: list[BBox] = []
    for obj, outer, _ in page_objects(page):
        if obj.type != pdfium_c.FPDF_PAGEOBJ_PATH:
            continue
        left, bottom, right, upper = _bounds(obj, outer)
        if (right - left <= RULE_MAX_THICKNESS) != (upper - bottom <= RULE_MAX_THICKNESS):
            rules.append(frame.box(left, bottom, right, upper))
            continue
        m = _then(tuple(obj.get_matrix().get()), outer)
        for (x0, y0, _), (x1, y1, move_to) in itertools.pairwise(_segment_points(obj)):
            if move_to:
                continue
            ax, ay = _apply(m, x0, y0)
            bx, by = _apply(m, x1, y1)
            horizontal = abs(ay - by) < 0.5 and abs(ax - bx) >= MIN_RULE_LEN
            vertical = abs(ax - bx) < 0.5 and abs(ay - by) >= MIN_RULE_LEN
            if horizontal or vertical:
                rules.append(frame.box(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
    return rules


def _segment_points(obj: pdfium.PdfObject) -> list[tuple[float, float, bool]]:
    """The path's points as (x, y, is_moveto), with closing segments expanded back to the start."""
    count = pdfium_c.FPDFPath_CountSegments(obj)
    points: list[tuple[float, float, bool]] = []
    start: tuple[float, float] | None = None
    x, y = ctypes.c_float(), ctypes.c_float()
    for i in range(max(count, 0)):
        seg = pdfium_c.FPDFPath_GetPathSegment(obj, i)
        if not pdfium_c.FPDFPathSegment_GetPoint(seg, x, y):
            continue
        kind = pdfium_c.FPDFPathSegment_GetType(seg)
        is_move = kind == pdfium_c.FPDF_SEGMENT_MOVETO
        if kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            is_move = True  # curves are never rules; restart from their end point
        points.append((x.value, y.value, is_move))
        if is_move:
            start = (x.value, y.value)
        if pdfium_c.FPDFPathSegment_GetClose(seg) and start is not None:
            points.append((start[0], start[1], False))
    return points


def graphics(page: pdfium.PdfPage, frame: PageFrame) -> tuple[list[BBox], list[BBox], list[BBox]]:
    """Raster images, vector drawings and small filled marks (drawn bullets:
    input/drawn_bullets.py), as boxes in the displayed page's points. A drawing is a form XObject
    on the page that draws paths or images (how LaTeX, Word and most tools place a chart), boxed
    round what it shows (paths, images and labels, each cut to its clip path), or a cluster of at
    least DRAWING_MIN_PATHS paths on the page itself that are not mostly thin lines (a ruled table
    is)."""
    images: list[BBox] = []
    drawings: list[BBox] = []
    marks: list[BBox] = []
    loose_paths: list[tuple[float, float, float, float]] = []
    drawn: list[tuple[float, float, float, float]] = []  # what the current form draws, page space
    labels: list[tuple[float, float, float, float]] = []  # and the text it shows
    for obj, outer, depth in page_objects(page):
        if depth == 0 and (drawn or labels):
            drawings.extend([frame.box(*_form_box(drawn, labels))] if drawn else [])
            drawn, labels = [], []
        kind = obj.type
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            images.append(frame.box(*_bounds(obj, outer)))
        if depth > 0 and kind in (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE, pdfium_c.FPDF_PAGEOBJ_TEXT):
            shown = _shown_bounds(obj, outer)
            (labels if kind == pdfium_c.FPDF_PAGEOBJ_TEXT else drawn).extend([shown] if shown is not None else [])
        elif depth == 0 and kind == pdfium_c.FPDF_PAGEOBJ_PATH:
            loose_paths.append(_bounds(obj, outer))
        if kind == pdfium_c.FPDF_PAGEOBJ_PATH and _filled(obj):
            box = frame.box(*_bounds(obj, outer))
            marks.extend([box] if is_mark(box) else [])
    if drawn:
        drawings.append(frame.box(*_form_box(drawn, labels)))
    drawings += [frame.box(*box) for box in _path_clusters(loose_paths)]
    return images, drawings, marks


def _filled(obj: pdfium.PdfObject) -> bool:
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    return bool(pdfium_c.FPDFPath_GetDrawMode(obj, fill, stroke)) and fill.value != pdfium_c.FPDF_FILLMODE_NONE


def _shown_bounds(obj: pdfium.PdfObject, outer: Matrix) -> tuple[float, float, float, float] | None:
    """The object's bounds in page space cut to its clip path (None: clipped away). A chart's
    contour paths run far past its frame and are clipped to it; their own bounds took in half
    the page, the code listing above the chart included."""
    left, bottom, right, top = _bounds(obj, outer)
    clip = pdfium_c.FPDFPageObj_GetClipPath(obj)
    if not clip:
        return left, bottom, right, top
    x, y = ctypes.c_float(), ctypes.c_float()
    points = []
    for i in range(pdfium_c.FPDFClipPath_CountPaths(clip)):
        for j in range(pdfium_c.FPDFClipPath_CountPathSegments(clip, i)):
            segment = pdfium_c.FPDFClipPath_GetPathSegment(clip, i, j)
            if pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
                points.append(_apply(outer, x.value, y.value))
    if not points:
        return left, bottom, right, top
    left, bottom = max(left, min(p[0] for p in points)), max(bottom, min(p[1] for p in points))
    right, top = min(right, max(p[0] for p in points)), min(top, max(p[1] for p in points))
    return (left, bottom, right, top) if left < right and bottom < top else None


# A bar (a path at most this thick and this many times as long as thick) that reaches mostly
# outside the rest of what a form draws is the page's decoration, not part of its drawing.
BAR_MAX_THICKNESS = 6.0
BAR_MIN_LENGTH = 10.0
BAR_MIN_INSIDE = 0.5


def _form_box(
    drawn: list[tuple[float, float, float, float]], labels: list[tuple[float, float, float, float]]
) -> tuple[float, float, float, float]:
    """The box of what a form XObject shows: its paths, images and labels, less bars that run
    mostly outside the rest. A page's header drawn as one form (a logo, a wordmark and a rule
    across the page under both) was boxed across the page, over the running titles beside the
    logo, which were read as the figure's words; a chart's axes and grid lines lie within the
    box of its plot and labels, and stay in it."""

    def bar(b: tuple[float, float, float, float]) -> bool:
        thin, long = sorted((b[2] - b[0], b[3] - b[1]))
        return thin <= BAR_MAX_THICKNESS and long >= BAR_MIN_LENGTH * max(thin, 0.1)

    rest = [b for b in drawn if not bar(b)] + labels
    if not rest or len(rest) == len(drawn) + len(labels):
        return _union(drawn + labels)
    core = _union(rest)

    def inside(b: tuple[float, float, float, float]) -> float:
        """The share of a bar's length within the core's span along it."""
        lo, hi, core_lo, core_hi = (
            (b[0], b[2], core[0], core[2]) if b[2] - b[0] >= b[3] - b[1] else (b[1], b[3], core[1], core[3])
        )
        return max(0.0, min(hi, core_hi) - max(lo, core_lo)) / max(hi - lo, 1e-6)

    return _union(rest + [b for b in drawn if bar(b) and inside(b) >= BAR_MIN_INSIDE])


def _union(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def _path_clusters(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Clusters of path boxes (PDF space) within DRAWING_LINK_PT of each other that hold at least
    DRAWING_MIN_PATHS paths, fewer than DRAWING_MAX_RULE_SHARE of them thin lines."""
    if len(boxes) < DRAWING_MIN_PATHS:
        return []
    arr = np.array(boxes, dtype=float)
    pad = DRAWING_LINK_PT / 2
    ox, oy = arr[:, 0].min() - pad, arr[:, 1].min() - pad
    width, height = arr[:, 2].max() + pad - ox, arr[:, 3].max() + pad - oy
    scale = min(1.0, _MAX_MASK_SIDE / max(1.0, width, height))
    mask = np.zeros((int(height * scale) + 2, int(width * scale) + 2), dtype=np.uint8)
    grow = np.array([-pad - ox, -pad - oy, pad - ox, pad - oy])
    cells = ((arr + grow) * scale).astype(int)
    for x0, y0, x1, y1 in cells:
        mask[y0 : y1 + 1, x0 : x1 + 1] = 1
    _, labels = cv2.connectedComponents(mask, connectivity=8)
    cx = ((arr[:, 0] + arr[:, 2]) / 2 - ox) * scale
    cy = ((arr[:, 1] + arr[:, 3]) / 2 - oy) * scale
    owner = labels[cy.astype(int), cx.astype(int)]
    thin = np.minimum(arr[:, 2] - arr[:, 0], arr[:, 3] - arr[:, 1]) <= RULE_MAX_THICKNESS
    out = []
    for label in np.unique(owner):
        members = owner == label
        count = int(members.sum())
        if label == 0 or count < DRAWING_MIN_PATHS or thin[members].mean() >= DRAWING_MAX_RULE_SHARE:
            continue
        sub = arr[members]
        out.append((float(sub[:, 0].min()), float(sub[:, 1].min()), float(sub[:, 2].max()), float(sub[:, 3].max())))
    return out
