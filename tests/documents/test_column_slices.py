"""A newspaper's justified column stays one column (issue 22): a river of spaces down a few lines
no longer leaves the column cut into slices (layout/column_slices.py)."""

from __future__ import annotations

from ocrqueue.documents.layout.column_slices import rejoin_slices
from ocrqueue.documents.layout.xycut import Region


# Cells of 1/50 in, as XY-cut gives them: a column 0-100 wide, lines 6 tall at a pitch of 8.
def test_slices_of_a_column_are_one_region() -> None:
    leaves = [
        Region(0, 0, 100, 38),  # five lines
        Region(0, 40, 45, 62),  # three lines cut at a river: left of it ...
        Region(60, 40, 100, 62),  # ... and right of it
        Region(0, 64, 100, 86),  # three lines
        Region(0, 88, 40, 94),  # the paragraph's last line, ending short
        Region(0, 104, 100, 150),  # the next paragraph, after a paragraph's gap
    ]
    assert rejoin_slices(leaves, row_gap=2, line_height=6) == [Region(0, 0, 100, 94), Region(0, 104, 100, 150)]


def test_columns_side_by_side_stay_apart() -> None:
    """Two columns under a full-width paragraph, and a table's columns, are no river."""
    columns = [Region(0, 0, 100, 30), Region(0, 32, 45, 120), Region(55, 32, 100, 120)]
    assert rejoin_slices(columns, row_gap=2, line_height=6) == columns
    table = [Region(0, 0, 100, 30), Region(0, 32, 20, 54), Region(40, 32, 70, 54), Region(0, 66, 100, 90)]
    assert rejoin_slices(table, row_gap=2, line_height=6) == table
