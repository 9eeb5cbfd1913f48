"""Page selections like ``1-5,9``: which pages of a document to read, numbered from 1 as people do."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ocrqueue.documents.errors import InvalidOptionsError

_PART = re.compile(r"^\s*(\d{1,7})\s*(?:-\s*(\d{1,7})\s*)?$")
_MAX_PARTS = 200


class PageRangeError(InvalidOptionsError):
    """A malformed selection, or one that names pages the document does not have."""

    code = "invalid_pages"


@dataclass(frozen=True)
class PageSelection:
    """Ascending, non-overlapping inclusive ranges of page numbers (from 1)."""

    ranges: tuple[tuple[int, int], ...]

    @classmethod
    def parse(cls, text: str) -> PageSelection:
        """``"1-5,9"`` → pages 1 to 5 and 9. Overlaps and out-of-order parts are merged and sorted."""
        parts = text.split(",")
        if not text.strip() or len(parts) > _MAX_PARTS:
            raise PageRangeError(f"pages must be like 1-5,9 (at most {_MAX_PARTS} parts), not {text[:60]!r}")
        spans: list[tuple[int, int]] = []
        for part in parts:
            matched = _PART.match(part)
            if matched is None:
                raise PageRangeError(f"pages must be like 1-5,9: {part.strip()[:40]!r} is not a page or a range")
            first = int(matched.group(1))
            last = int(matched.group(2) or first)
            if first < 1 or last < first:
                raise PageRangeError(f"pages: {part.strip()!r} is not a range of pages numbered from 1")
            spans.append((first, last))
        merged: list[tuple[int, int]] = []
        for first, last in sorted(spans):
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return cls(tuple(merged))

    @classmethod
    def of_indices(cls, indices: Sequence[int]) -> PageSelection:
        """The selection of the pages at ``indices`` (from 0, ascending): a child task's part."""
        runs: list[tuple[int, int]] = []
        for number in (i + 1 for i in indices):
            if runs and number == runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], number)
            else:
                runs.append((number, number))
        return cls(tuple(runs))

    def __str__(self) -> str:
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)

    @property
    def last(self) -> int:
        return self.ranges[-1][1]

    def __len__(self) -> int:
        return sum(b - a + 1 for a, b in self.ranges)

    def number_at(self, position: int) -> int:
        """The page number (from 1) at `position` (from 0) in reading order; the last one past the end."""
        for first, last in self.ranges:
            if position <= last - first:
                return first + position
            position -= last - first + 1
        return self.last

    def check(self, page_count: int) -> None:
        if self.last > page_count:
            raise PageRangeError(f"pages {self} ask for page {self.last}, but the document has {page_count}")

    def indices(self, page_count: int) -> list[int]:
        """The selected pages as indices from 0, after checking they exist."""
        self.check(page_count)
        return [i - 1 for a, b in self.ranges for i in range(a, b + 1)]


def selected_indices(pages: str | None, page_count: int) -> list[int]:
    """The indices (from 0) of the pages a selection like ``"1-5,9"`` names, every page when None;
    raises PageRangeError for pages the document lacks. What options ask for and what a result
    must hold are the same pages."""
    return list(range(page_count)) if pages is None else PageSelection.parse(pages).indices(page_count)
