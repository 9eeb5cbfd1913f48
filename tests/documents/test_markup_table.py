from __future__ import annotations

from ocrqueue.documents.layout.markup_table import MarkupCell, parse_markup_table


def test_html_with_spans_lands_on_the_right_grid_positions() -> None:
    table = parse_markup_table(
        "<table><tr><th rowspan=2>Region</th><th colspan=2>Sales</th></tr>"
        "<tr><td>Q1</td><td>Q2</td></tr><tr><td>North &amp; East</td><td>1</td><td>2<br>(est.)</td></tr></table>"
    )
    assert table is not None and (table.n_rows, table.n_cols) == (3, 3)
    assert table.cells == (
        MarkupCell(0, 0, "Region", 2, 1),
        MarkupCell(0, 1, "Sales", 1, 2),
        MarkupCell(1, 1, "Q1"),
        MarkupCell(1, 2, "Q2"),
        MarkupCell(2, 0, "North & East"),
        MarkupCell(2, 1, "1"),
        MarkupCell(2, 2, "2 (est.)"),
    )


def test_markdown_pipe_tables_and_fenced_answers() -> None:
    table = parse_markup_table("| Item | Price |\n|---|---:|\n| Apples | 3.50 |\n")
    assert table is not None and [c.text for c in table.cells] == ["Item", "Price", "Apples", "3.50"]


def test_no_table_or_hostile_markup_gives_nothing_executable() -> None:
    assert parse_markup_table("I could not read this table.") is None
    assert parse_markup_table("<table><tr><td></td></tr></table>") is None
    table = parse_markup_table("<table><tr><td><script>alert(1)</script><img src=x onerror=y>ok</td></tr></table>")
    assert table is not None and table.cells[0].text == "alert(1)ok"


def test_spans_are_clipped_to_the_table() -> None:
    table = parse_markup_table('<table><tr><td rowspan="999" colspan="x">a</td><td>b</td></tr></table>')
    assert table is not None and table.cells == (MarkupCell(0, 0, "a", 1, 1), MarkupCell(0, 1, "b"))
