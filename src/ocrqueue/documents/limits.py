"""Resource limits for one input document, passed in by the caller (mapped from settings)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentLimits:
    """Hard limits checked while opening and rendering; exceeding one raises a DocumentError.

    ``render_dpi`` is the highest resolution a PDF page is rendered at for OCR (a request for more
    is lowered, with a page warning); ``max_pixels_per_page`` can lower it further for big pages.
    """

    max_file_bytes: int = 200 * 1024 * 1024
    max_pages: int = 2000
    max_pixels_per_page: int = 60_000_000
    render_dpi: int = 200

    def __post_init__(self) -> None:
        for name in ("max_file_bytes", "max_pages", "max_pixels_per_page", "render_dpi"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
