"""A document result as hOCR 1.2 (https://kba.github.io/hocr-spec/1.2/), page by page: XHTML with an
`ocr_page` per page (`image`, `ppageno`, `bbox`, `scan_res`), `ocr_carea` per block, `ocr_par`,
`ocr_line` and `ocrx_word` with `bbox` in pixels of the page image and `x_wconf` (0-100), a figure
without text as `ocr_photo`, and the `ocr-system`, `ocr-capabilities` and `ocr-number-of-pages`
metadata. Languages are BCP 47 tags in `lang` and `xml:lang`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from xml.sax.saxutils import escape, quoteattr

from ocrqueue.documents.model import PageResult
from ocrqueue.documents.output.languages import first_tag
from ocrqueue.documents.output.wordboxes import Area, Box, BoxedLine, PagePixels, xml_safe

CAPABILITIES = "ocr_page ocr_carea ocr_par ocr_line ocrx_word ocr_photo ocrp_wconf ocrp_lang"


def _bbox(box: Box) -> str:
    return f"bbox {box.x0} {box.y0} {box.x1} {box.y1}"


def _title_string(value: str) -> str:
    """A quoted string inside a `title` property (the spec's double quotes, backslash-escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lang(tag: str | None) -> str:
    return f' lang="{tag}" xml:lang="{tag}"' if tag else ""


def _line(line: BoxedLine, page: int, ids: Iterator[int]) -> str:
    number = next(ids)
    words = []
    for word in line.words:
        conf = "" if word.confidence is None else f"; x_wconf {round(word.confidence * 100)}"
        words.append(
            f'<span class="ocrx_word" id="word_{page}_{next(ids)}" title="{_bbox(word.box)}{conf}">'
            f"{escape(word.text)}</span>"
        )
    return f'<span class="ocr_line" id="line_{page}_{number}" title="{_bbox(line.box)}">' + " ".join(words) + "</span>"


def _area(area: Area, page: int, ids: Iterator[int]) -> str:
    number = next(ids)
    if area.figure:
        return f'<div class="ocr_photo" id="photo_{page}_{number}" title="{_bbox(area.box)}"></div>'
    lines = "\n".join(_line(line, page, ids) for line in area.lines)
    return (
        f'<div class="ocr_carea" id="block_{page}_{number}" title="{_bbox(area.box)}">\n'
        f'<p class="ocr_par" id="par_{page}_{number}" title="{_bbox(area.box)}">\n{lines}\n</p>\n</div>'
    )


def page_hocr(page: PageResult, dpi: float, image: str) -> str:
    """One `ocr_page`: `image` is the page image's file name or URL, its pixels at `dpi`."""
    pixels = PagePixels(page, dpi)
    number = page.index + 1
    ids = iter(range(1, 1 << 62))
    resolution = round(dpi)
    title = (
        f"image {_title_string(xml_safe(image))}; bbox 0 0 {pixels.width} {pixels.height}; "
        f"ppageno {page.index}; scan_res {resolution} {resolution}"
    )
    areas = "\n".join(_area(area, number, ids) for area in pixels.areas())
    return (
        f'<div class="ocr_page" id="page_{number}" title={quoteattr(title)}{_lang(first_tag(page.languages))}>\n'
        f"{areas}\n</div>\n"
    )


def hocr_chunks(
    pages: Iterable[PageResult],
    *,
    title: str,
    system: str,
    dpi: float,
    image: Callable[[PageResult], str],
    page_count: int | None = None,
) -> Iterator[str]:
    """The head, then each page as it comes, then the end. `image(page)` names the page's image
    (e.g. its URL); boxes are pixels of that image at `dpi`; `system` is the ocr-system."""
    pages_meta = f'<meta name="ocr-number-of-pages" content="{page_count}"/>\n' if page_count is not None else ""
    yield (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        '<html xmlns="http://www.w3.org/1999/xhtml">\n<head>\n'
        f"<title>{escape(xml_safe(title))}</title>\n"
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-8"/>\n'
        f'<meta name="ocr-system" content={quoteattr(system)}/>\n'
        f'<meta name="ocr-capabilities" content="{CAPABILITIES}"/>\n{pages_meta}'
        "</head>\n<body>\n"
    )
    for page in pages:
        yield page_hocr(page, dpi, image(page))
    yield "</body>\n</html>\n"
