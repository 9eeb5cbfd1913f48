"""A table a model wrote as markup (HTML, or a Markdown pipe table) turned into cells.

GLM-OCR answers `Table Recognition:` with HTML, spans included. The markup is parsed as data
(stdlib HTMLParser, never rendered), and its cells are placed on a grid with the usual HTML table
algorithm: each cell takes the next column its row has free after the spans from rows above.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

_PIPE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_MAX_SPAN = 100


@dataclass(frozen=True)
class MarkupCell:
    row: int
    col: int
    text: str
    row_span: int = 1
    col_span: int = 1


@dataclass(frozen=True)
class MarkupTable:
    n_rows: int
    n_cols: int
    cells: tuple[MarkupCell, ...]


class _Rows(HTMLParser):
    """Collects the rows of the first table: (text, row span, column span) per cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int]]] = []
        self._cell: list[str] | None = None
        self._spans = (1, 1)
        self._depth = 0
        self._done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth += 1
        elif self._depth == 1 and tag == "tr":
            self.rows.append([])
        elif self._depth == 1 and tag in ("td", "th"):
            if not self.rows:
                self.rows.append([])
            values = dict(attrs)
            self._spans = (_span(values.get("rowspan")), _span(values.get("colspan")))
            self._cell = []
        elif self._cell is not None and tag == "br":
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._done:
            return
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append((" ".join("".join(self._cell).split()), *self._spans))
            self._cell = None
        elif tag == "table":
            self._depth -= 1
            self._done = self._depth == 0

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _span(value: str | None) -> int:
    try:
        return min(_MAX_SPAN, max(1, int(value or 1)))
    except ValueError:
        return 1


def _pipe_rows(markup: str) -> list[list[tuple[str, int, int]]]:
    rows = []
    for line in markup.splitlines():
        line = line.strip()
        if not line.startswith("|") or _PIPE_SEPARATOR.match(line):
            continue
        cells = line.strip("|").split("|")
        rows.append([(" ".join(cell.split()), 1, 1) for cell in cells])
    return rows


def parse_markup_table(markup: str) -> MarkupTable | None:
    """The table in `markup`, or None when there is none with at least one cell of text."""
    if "<t" in markup.lower():
        parser = _Rows()
        parser.feed(markup)
        parser.close()
        rows = [row for row in parser.rows if row]
    else:
        rows = _pipe_rows(markup)
    if not rows or not any(text for row in rows for text, _, _ in row):
        return None
    taken: set[tuple[int, int]] = set()
    cells: list[MarkupCell] = []
    for r, row in enumerate(rows):
        col = 0
        for text, row_span, col_span in row:
            while (r, col) in taken:
                col += 1
            for dr in range(row_span):
                for dc in range(col_span):
                    taken.add((r + dr, col + dc))
            cells.append(MarkupCell(r, col, text, row_span, col_span))
            col += col_span
    n_rows = len(rows)  # as in HTML, a row span past the last row ends there
    n_cols = max(c for r, c in taken if r < n_rows) + 1
    clipped = tuple(
        MarkupCell(c.row, c.col, c.text, min(c.row_span, n_rows - c.row), min(c.col_span, n_cols - c.col))
        for c in cells
    )
    return MarkupTable(n_rows, n_cols, clipped)
