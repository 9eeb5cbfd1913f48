"""Resource limits for one input document, passed in by the caller (mapped from settings)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentLimits:
    """Hard limits checked while opening and rendering; exceeding one raises a DocumentError.

    ``render_dpi`` is the highest resolution a PDF page is rendered at for OCR (a request for more
    is lowered, with a page warning); ``render_pixel_budget`` lowers it further for big pages (a
    25x50-inch poster at 200 dpi is 50 million pixels, and OCR needs several copies of them: 1.2 GB),
    though never below 72 dpi. ``max_pixels_per_page`` is the hard limit: a page that does not fit
    even at 72 dpi, or an image with more pixels, is refused. ``min_page_side_pixels`` refuses the other
    end: strips and specks no engine can read (a 1x100,000 strip crashed OpenCV's layout step).
    """

    max_file_bytes: int = 200 * 1024 * 1024
    max_pages: int = 10_000
    max_pixels_per_page: int = 60_000_000
    render_dpi: int = 200
    render_pixel_budget: int = 12_000_000
    min_page_side_pixels: int = 8

    def __post_init__(self) -> None:
        for name in (
            "max_file_bytes",
            "max_pages",
            "max_pixels_per_page",
            "render_dpi",
            "render_pixel_budget",
            "min_page_side_pixels",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
