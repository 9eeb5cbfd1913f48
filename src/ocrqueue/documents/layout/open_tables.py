"""Tables ruled only across, booktabs style: a top rule, a rule under the header and a bottom rule,
all of one width, and no vertical rules.

LaTeX's booktabs and most papers set tables so. Without vertical rules the grid finder sees no
table, and the columns were read one after another like text columns (ctex's table of font
sizes came out column by column). Here a run of same-width rules whose slabs hold rows split into
columns is a table: rows are the text rows, columns the gaps of whitespace through the body rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.cells import MIN_COLUMN_GAP_PT, column_bounds, nearest_column
from ocrqueue.documents.layout.code import is_listing
from ocrqueue.documents.layout.rows import across_gutters, merge_rows
from ocrqueue.documents.model import Line, Table, TableCell, Word
from ocrqueue.documents.text import join_words

MIN_RULES = 3  # top, under the header, bottom
# Two rules alone also frame code listings and boxes: between only two, most rows must fall
# into the same columns, and there must be a few of them.
TWO_RULE_MIN_ROWS = 3
TWO_RULE_ROW_SHARE = 0.5
SAME_EDGE_PT = 3.0  # how far the ends of two rules of one table may differ
RULE_MIN_ASPECT = 8.0  # a rule is at least this many times longer than thick


@dataclass(frozen=True)
class RuleBand:
    """The area between a table's top and bottom rule; ``header_bottom`` is the y of its last
    inner rule (the rows above it are the header)."""

    box: BBox
    header_bottom: float


def rule_bands(rules: Sequence[BBox], lines: Sequence[Line], taken: Sequence[BBox]) -> list[RuleBand]:
    """Bands of at least ``MIN_RULES`` horizontal rules of one width (outside ``taken`` boxes)
    in which every slab between two rules that holds text has a row split into columns: a
    page's header rule above a paragraph and a table is not part of the table. Two rules make a
    band only around rows laid out in columns (``_grid_like``)."""
    near = [_near(t) for t in taken]
    horizontal = sorted(
        (
            r
            for r in rules
            if r.width >= RULE_MIN_ASPECT * max(r.height, 0.1) and not any(t.contains_center_of(r) for t in near)
        ),
        key=lambda r: r.cy,
    )
    bands: list[RuleBand] = []
    used: set[int] = set()
    for i, top in enumerate(horizontal):
        if i in used:
            continue
        chain = [i]
        for j in range(i + 1, len(horizontal)):
            rule = horizontal[j]
            if j in used or abs(rule.x0 - top.x0) > SAME_EDGE_PT or abs(rule.x1 - top.x1) > SAME_EDGE_PT:
                continue
            above = horizontal[chain[-1]]
            if not _tabular(_lines_between(lines, top.x0, top.x1, above.cy, rule.cy)):
                break
            chain.append(j)
        if len(chain) == 2:
            first, last = horizontal[chain[0]], horizontal[chain[1]]
            if not _grid_like(_lines_between(lines, top.x0, top.x1, first.cy, last.cy)):
                continue
        if len(chain) >= 2:
            used.update(chain)
            bottom, header = horizontal[chain[-1]], horizontal[chain[-2]]
            bands.append(RuleBand(BBox(top.x0, top.cy, top.x1, bottom.cy), header.cy))
    return bands


def band_table(band: RuleBand, lines: Sequence[Line]) -> Table | None:
    """The band's lines as a table: one row per text row, columns from the body rows' gaps (a
    header cell may span several body columns). None when fewer than two rows or columns."""
    rows = merge_rows(ln for ln in lines if ln.words)
    body = [r for r in rows if r.bbox.cy > band.header_bottom]
    columns = _columns(body) if len(body) >= 2 else []
    if len(columns) < 2:
        columns = _columns(rows)
    if len(columns) < 2 or len(rows) < 2:
        return None
    cells: list[TableCell] = []
    for r, row in enumerate(rows):
        per_column: list[list[Word]] = [[] for _ in columns]
        for word in row.words:
            per_column[nearest_column(columns, word.bbox.cx)].append(word)
        for c, words in enumerate(per_column):
            x0, x1 = columns[c]
            box = union(w.bbox for w in words) if words else BBox(x0, row.bbox.y0, x1, row.bbox.y1)
            cells.append(TableCell(r, c, join_words([w.text for w in words]), box))
    return Table(len(rows), len(columns), tuple(cells))


def _near(box: BBox) -> BBox:
    """``box`` grown by a rule's slack: a grid's edges are measured on a mask, its rules are not."""
    return BBox(box.x0 - SAME_EDGE_PT, box.y0 - SAME_EDGE_PT, box.x1 + SAME_EDGE_PT, box.y1 + SAME_EDGE_PT)


def _columns(rows: Sequence[Line]) -> list[tuple[float, float]]:
    return column_bounds([w.bbox for row in rows for w in row.words], MIN_COLUMN_GAP_PT)


def _lines_between(lines: Sequence[Line], x0: float, x1: float, y0: float, y1: float) -> list[Line]:
    """The lines, or their pieces between gutters (``across_gutters``), whose centres lie between
    the rules: a row written a baseline at a time from a column of text into the table beside it
    has its centre over the table, and the column's words made a slab of prose look like a row
    of cells (a gap between the column and the table)."""
    return [p for ln in lines for p in across_gutters(ln) if x0 <= p.bbox.cx <= x1 and y0 < p.bbox.cy < y1]


def _grid_like(lines: list[Line]) -> bool:
    """Rows that mostly fall into the same two or more columns: a table, not a framed listing
    (monospaced lines, whose line numbers make a column of their own)."""
    if is_listing(lines):
        return False
    rows = merge_rows(ln for ln in lines if ln.words)
    columns = _columns(rows)
    if len(rows) < TWO_RULE_MIN_ROWS or len(columns) < 2:
        return False
    spread = sum(len({nearest_column(columns, w.bbox.cx) for w in row.words}) >= 2 for row in rows)
    return spread >= TWO_RULE_ROW_SHARE * len(rows)


def _tabular(lines: list[Line]) -> bool:
    """No text (two rules close together), or a row whose words leave a column gap."""
    if not lines:
        return True
    return any(len(_columns([row])) >= 2 for row in merge_rows(ln for ln in lines if ln.words))
