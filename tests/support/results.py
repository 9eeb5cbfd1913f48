"""Comparing document results of two readings: all of a result but what is measured."""

from __future__ import annotations

from typing import Any


def without_timings(document: dict[str, Any]) -> dict[str, Any]:
    """A document result's JSON without each page's stage timings, which differ between any two
    readings of the same input while everything else must be equal."""
    pages = [{k: v for k, v in page.items() if k != "timings"} for page in document["pages"]]
    return {**document, "pages": pages}
