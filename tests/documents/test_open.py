"""Opening input: type from magic bytes, validation errors, lazy page iteration."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    InputFormat,
    ProcessOptions,
    open_document,
    process_page,
    sniff_format,
)
from ocrqueue.documents.input import pdf as pdf_module

from .conftest import Samples


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("english", InputFormat.PNG),
        ("english_scan", InputFormat.JPEG),
        ("english_webp", InputFormat.WEBP),
        ("english_bmp", InputFormat.BMP),
        ("multipage_tiff", InputFormat.TIFF),
        ("born_digital", InputFormat.PDF),
    ],
)
def test_type_comes_from_bytes(samples: Samples, name: str, fmt: InputFormat) -> None:
    data = samples.data(name)
    assert sniff_format(data) is fmt
    with open_document(data) as doc:
        assert doc.format is fmt
        assert doc.meta.media_type == fmt.media_type


def test_file_name_is_ignored(samples: Samples) -> None:
    # "picture.png" is a GIF and "notes.pdf" is text: both are refused whatever their names say.
    assert samples["unsupported_gif"].path.endswith(".png")
    assert sniff_format(samples.data("unsupported_gif")) is None
    assert sniff_format(b"junk before the header %PDF-1.4 ...") is InputFormat.PDF


BAD = {
    "empty": "the file is empty",
    "truncated_png": "damaged or truncated",
    "truncated_pdf": "PDF is damaged or truncated",
    "corrupt_pdf": "PDF is damaged or truncated",
    "encrypted_pdf": "PDF is encrypted",
    "unsupported_gif": "looks like a GIF image",
    "unsupported_text": "looks like plain text",
    "bomb": "too large to decode safely",
    "too_many_pages": "12 pages, over the limit of 10",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_gives_code_and_message(samples: Samples, name: str) -> None:
    with pytest.raises(DocumentError) as info:
        open_document(samples.data(name), DocumentLimits(max_pages=10))
    assert info.value.code == samples[name].error_code
    assert BAD[name] in str(info.value)


def test_file_size_limit(samples: Samples) -> None:
    with pytest.raises(DocumentError) as info:
        open_document(samples.data("english"), DocumentLimits(max_file_bytes=1000))
    assert info.value.code == "too_large"


def test_own_pixel_limit_below_pillows(samples: Samples) -> None:
    with pytest.raises(DocumentError) as info:
        open_document(samples.data("english"), DocumentLimits(max_pixels_per_page=1_000_000))
    assert info.value.code == "too_many_pixels"
    assert "1654x2339" in str(info.value)


def test_pdf_render_dpi_is_lowered_to_fit_pixel_limit(samples: Samples) -> None:
    limits = DocumentLimits(max_pixels_per_page=1_000_000)
    with open_document(samples.data("scanned_pdf"), limits) as doc:
        pages = doc.pages()  # a page stays valid while its generator is alive
        page = next(pages)
        raster = page.render(200)
        assert raster.image.width * raster.image.height <= 1_000_000
        assert 72 <= raster.dpi < 200
    tiny = DocumentLimits(max_pixels_per_page=10_000)
    with open_document(samples.data("scanned_pdf"), tiny) as doc, pytest.raises(DocumentError) as info:
        for page in doc.pages():
            process_page(page, ProcessOptions(mode="ocr"))
    assert info.value.code == "too_many_pixels"


def test_render_dpi_limit_caps_the_requested_dpi(samples: Samples) -> None:
    with open_document(samples.data("scanned_pdf"), DocumentLimits(render_dpi=100)) as doc:
        (result,) = [process_page(page, ProcessOptions(mode="ocr", dpi=300)) for page in doc.pages()]
    assert result.dpi == 100
    assert "rendered at 100 dpi instead of 300" in result.warnings[0]


def test_page_count_and_tiff_frames(samples: Samples) -> None:
    with open_document(samples.data("multipage_tiff")) as doc:
        assert doc.page_count == 2
        assert [p.index for p in doc.pages()] == [0, 1]
    with open_document(samples.data("long_pdf")) as doc:
        assert doc.page_count == 30


def test_pages_start_at_k_and_load_lazily(samples: Samples, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[int] = []
    original = pdf_module.PdfPage

    class Spy(original):  # type: ignore[misc, valid-type]
        def __post_init__(self) -> None:
            loaded.append(self._index)
            super().__post_init__()

    monkeypatch.setattr(pdf_module, "PdfPage", Spy)
    with open_document(samples.data("long_pdf")) as doc:
        pages = doc.pages(start=27)
        first = next(pages)
        assert first.index == 27
        assert loaded == [27]  # nothing beyond the page asked for
        assert [p.index for p in pages] == [28, 29]
        assert loaded == [27, 28, 29]
        with pytest.raises(ValueError, match="outside"):
            next(doc.pages(start=31))


@pytest.mark.parametrize(("mode", "kept"), [("L", "L"), ("RGB", "RGB"), ("1", "L"), ("P", "RGB"), ("RGBA", "RGB")])
def test_grey_and_rgb_frames_are_kept_as_decoded(mode: str, kept: str) -> None:
    """A grey scan stays grey (OCR reads grey), a bilevel one becomes grey; other modes RGB."""
    buffer = io.BytesIO()
    Image.new(mode, (850, 1100), 1 if mode == "1" else 0).save(buffer, "PNG")
    with open_document(buffer.getvalue()) as doc:
        raster = next(iter(doc.pages())).render(200)
    assert raster.image.mode == kept


def test_a_page_read_after_its_iterator_is_dropped_says_it_is_closed(samples: Samples) -> None:
    """Before: ctypes.ArgumentError "expected LP_struct_fpdf_page_t__ instance instead of NoneType"
    from deep inside the text layer's reading, for ``process_page(next(doc.pages()))``."""
    with open_document(samples.data("long_pdf")) as doc:
        page = next(doc.pages())  # the iterator is dropped here, and closes the page
        with pytest.raises(pdf_module.PageClosedError, match="page 1 is closed"):
            process_page(page, ProcessOptions())
        kept = doc.pages()
        assert process_page(next(kept), ProcessOptions()).index == 0
