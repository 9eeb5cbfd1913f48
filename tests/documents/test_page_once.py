"""The OCR path for classic engines: one whole-page read, the layout model only where it helps,
and the OpenCV-based raster steps equal to their plain definitions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from generate import ENGLISH, PdfBuilder
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from ocrqueue.documents import (
    EngineCapabilities,
    EngineOutput,
    PipelineResources,
    RecognitionRequest,
    get_engine,
    open_document,
    registered_engine,
)
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.layout.gate import needs_layout_model
from ocrqueue.documents.layout.raster import analyse, find_rules
from ocrqueue.documents.layout.straighten import (
    CONTENT_MARGIN_IN,
    _ink_box,
    _ink_cells,
    _ink_threshold,
    coarse,
    deskew,
    estimate_skew,
    turn,
)
from ocrqueue.documents.layout.tables import long_runs
from ocrqueue.documents.ocr import page as ocrpath

from .conftest import Samples
from .helpers import run


@dataclass
class RecordingEngine:
    """Tesseract, noting what it is asked to read and the size of each image it is handed."""

    name: str = "recording"
    tasks: list[str] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)

    @property
    def capabilities(self) -> EngineCapabilities:
        """Tesseract's reading, without its orientation detection (the first look stays Tesseract's)."""
        tesseract = get_engine("tesseract").capabilities
        return replace(tesseract, detects_orientation=False, detects_script=False)

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        self.tasks.append(request.task)
        self.sizes.append(image.size)
        return get_engine("tesseract").recognize(image, request)


@dataclass
class SpyLayout:
    pages: int = 0

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        self.pages += 1
        return []


@pytest.mark.parametrize("name", ["two_column", "table", "span_table", "figure"])
def test_a_classic_engine_reads_each_page_once(samples: Samples, name: str) -> None:
    engine = RecordingEngine()
    with registered_engine("recording", lambda: engine):
        page = run(samples.data(name), engine="recording", mode="ocr").pages[0]
    assert engine.tasks == ["page"]
    assert page.source == "recording"


def test_a_page_read_poorly_but_without_chinese_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """OCRmyPDF's poster is display type that Tesseract reads with low confidence, so the second
    look asks whether it is Chinese: its poorly read lines answer no, and the whole page is not
    read again (which cost the poster ~1.1 GB with RapidOCR)."""
    reads: list[str] = []

    def counted(name: str, original: Callable[..., object]) -> Callable[..., object]:
        def read(*args: object) -> object:
            reads.append(name)
            return original(*args)

        return read

    for name in ("read_whole_page", "read_regions"):
        monkeypatch.setattr(ocrpath, name, counted(name, getattr(ocrpath, name)))
    poster = Path(__file__).resolve().parents[1] / "resources" / "poster.pdf"
    page = run(poster.read_bytes()).pages[0]
    assert reads == ["read_whole_page"]
    assert page.source == "tesseract" and page.languages == ("eng",)


@pytest.mark.parametrize(
    ("name", "wanted"),
    [
        ("english", False),
        ("chinese", False),
        ("two_column", False),
        ("table", False),
        ("table_scan", False),
        ("figure", True),
        ("unruled_table", True),
    ],
)
def test_layout_model_runs_only_where_the_page_needs_it(samples: Samples, name: str, wanted: bool) -> None:
    """When a classic engine reads the whole page, the gate (layout/gate.py) decides."""
    spy = SpyLayout()
    with PipelineResources(layout_model=lambda: spy) as resources:
        run(samples.data(name), resources, mode="ocr", engine="tesseract")
    assert spy.pages == (1 if wanted else 0)


def test_a_running_head_and_its_page_number_do_not_send_a_page_to_the_layout_model() -> None:
    """A page of prose under a running head with the page number at its right end: the number is a
    narrow region beside the head, one line of them, which is no table without rules (every page
    of a LaTeX manual or newsletter was shown to the model for it, about 0.18 s of one core)."""
    pdf = PdfBuilder()
    pdf.add_page(
        [
            PdfBuilder.text(72, 40, 9, "Journal of Durable Queues, volume 3"),
            PdfBuilder.text(500, 40, 9, "17"),
            *[PdfBuilder.text(72, 100 + i * 16, 11, line) for i, line in enumerate(ENGLISH)],
            PdfBuilder.text(72, 780, 9, "Printed for the readers of the journal"),
            PdfBuilder.text(500, 780, 9, "17"),
        ]
    )
    spy = SpyLayout()
    with PipelineResources(layout_model=lambda: spy) as resources:
        page = run(pdf.build(), resources, mode="ocr", engine="tesseract").pages[0]
    assert spy.pages == 0
    text = "\n".join(b.text for b in page.blocks)
    assert "Journal of Durable Queues" in text and ENGLISH[2] in text


def test_a_page_read_region_by_region_is_always_shown_to_the_layout_model(samples: Samples) -> None:
    """An engine that reads regions gets them from the layout, model included, on every page:
    even a page of prose that a whole-page read would not show the model."""
    pytest.importorskip("rapidocr")
    spy = SpyLayout()
    with PipelineResources(layout_model=lambda: spy) as resources:
        page = run(samples.data("chinese"), resources, mode="ocr").pages[0]
    assert page.source == "rapidocr" and spy.pages == 1


def test_gate_decisions_from_the_raster(samples: Samples) -> None:
    def decide(name: str) -> bool:
        with open_document(samples.data(name)) as doc:
            raster = next(iter(doc.pages())).render(200)
        page = deskew(raster.image, 200)
        rules = find_rules(page, 200)
        return needs_layout_model(page.grid, rules, analyse(page, rules, 200).regions, 200)

    assert not decide("english") and not decide("two_column_scan") and not decide("span_table")
    assert decide("figure") and decide("unruled_table")


def test_ruled_table_on_a_scan_read_whole_page_cells_right(samples: Samples) -> None:
    """The rules' grey fringe is painted out with them: no "|" in any cell."""
    page = run(samples.data("table_scan"), mode="ocr").pages[0]
    table = next(b.table for b in page.blocks if b.table is not None)
    assert table.grid() == [
        ["Item", "Quantity", "Price"],
        ["Apples", "12", "3.50"],
        ["Pears", "7", "4.20"],
        ["Plums", "30", "9.75"],
    ]


def _runs_reference(ink: np.ndarray, min_len: int, axis: int) -> np.ndarray:
    a = ink if axis == 1 else ink.T
    out = np.zeros_like(a)
    for r, row in enumerate(a):
        start = None
        for c, value in enumerate([*row.tolist(), False]):
            if value and start is None:
                start = c
            elif not value and start is not None:
                if c - start >= min_len:
                    out[r, start:c] = True
                start = None
    return out if axis == 1 else out.T


@settings(max_examples=150, deadline=None)
@given(
    ink=arrays(np.bool_, st.tuples(st.integers(1, 30), st.integers(1, 30))),
    min_len=st.integers(1, 12),
    axis=st.sampled_from([0, 1]),
)
def test_long_runs_is_the_plain_definition(ink: np.ndarray, min_len: int, axis: int) -> None:
    assert (long_runs(ink, min_len, axis) == _runs_reference(ink, min_len, axis)).all()


@settings(max_examples=100, deadline=None)
@given(mask=arrays(np.bool_, st.tuples(st.integers(1, 40), st.integers(1, 40))), factor=st.integers(1, 6))
def test_coarse_cells_hold_a_quarter_ink_and_a_neighbour(mask: np.ndarray, factor: int) -> None:
    got = coarse(mask, factor)
    h, w = mask.shape[0] // factor, mask.shape[1] // factor
    assert got.shape == (h, w)
    cells = np.array(
        [
            [
                mask[r * factor : (r + 1) * factor, c * factor : (c + 1) * factor].sum() >= max(1, factor * factor // 4)
                for c in range(w)
            ]
            for r in range(h)
        ],
        dtype=bool,
    ).reshape(h, w)
    for r in range(h):
        for c in range(w):
            around = cells[max(0, r - 1) : r + 2, max(0, c - 1) : c + 2].sum() - cells[r, c]
            assert got[r, c] == (bool(cells[r, c]) and around > 0 if factor > 1 else bool(mask[r, c]))


@pytest.mark.parametrize("height", [600, 601])
@pytest.mark.parametrize("angle", [-2.0, -0.8, 0.0, 0.6, 1.5])
def test_skew_found_from_projections(angle: float, height: int) -> None:
    """An odd height puts the centre between two rows: every projected row must still land in a
    bin of its own (rounding halves to even once paired rows up and favoured no skew)."""
    lines = np.zeros((height, 500), dtype=np.uint8)
    for y in range(60, 560, 24):
        lines[y : y + 8, 40:460] = 255
    turned = np.asarray(Image.fromarray(lines).rotate(-angle, resample=Image.Resampling.NEAREST)) > 0
    assert estimate_skew(turned) == pytest.approx(angle, abs=0.15)


@settings(max_examples=100, deadline=None)
@given(
    gray=arrays(np.uint8, st.tuples(st.integers(1, 40), st.integers(1, 40))),
    threshold=st.integers(-1, 255),
    factor=st.integers(1, 6),
)
def test_ink_cells_are_the_coarse_grid_and_the_cells_with_any_ink(
    gray: np.ndarray, threshold: int, factor: int
) -> None:
    grid, touched = _ink_cells(gray, threshold, factor)
    assert (grid == coarse(gray <= threshold, factor)).all()
    h, w = grid.shape
    assert touched.shape == (h, w)
    for r in range(h):
        for c in range(w):
            cell = gray[r * factor : (r + 1) * factor, c * factor : (c + 1) * factor]
            assert touched[r, c] == bool((cell <= threshold).any())


def test_content_box_holds_a_hairline_the_grid_misses_but_not_specks() -> None:
    margin = round(CONTENT_MARGIN_IN * 200)
    gray = _page_with_ink([(200, 300, 320, 340), (100, 100, 102, 102), (500, 40, 503, 43)])
    assert _content(gray) == (200 - margin, 300 - margin, 320 + margin, 340 + margin)
    gray[700, 100:300:2] = 0  # a dotted hairline: half a pixel row per cell, under the grid's quarter
    assert not _ink_cells(gray, 128, 4)[0][175].any()
    assert _content(gray) == (100 - margin, 300 - margin, 320 + margin, 704 + margin)


def _content(gray: np.ndarray) -> tuple[int, int, int, int] | None:
    """The content box deskew gives an untilted page (solid blocks have no skew worth the name)."""
    return _ink_box(*_ink_cells(gray, 128, 4), 4, round(CONTENT_MARGIN_IN * 200), gray.shape)


def _page_with_ink(boxes: list[tuple[int, int, int, int]], shape: tuple[int, int] = (800, 600)) -> np.ndarray:
    gray = np.full(shape, 255, dtype=np.uint8)
    for x0, y0, x1, y1 in boxes:
        gray[y0:y1, x0:x1] = 0
    return gray


def test_content_box_is_the_ink_and_a_margin_clipped_to_the_page() -> None:
    margin = round(CONTENT_MARGIN_IN * 200)
    assert _content(_page_with_ink([(200, 300, 320, 340), (240, 500, 400, 520)])) == (
        200 - margin,
        300 - margin,
        400 + margin,
        520 + margin,
    )
    assert _content(_page_with_ink([(0, 0, 40, 40), (560, 760, 600, 800)])) == (0, 0, 600, 800)


def test_content_box_leaves_out_speckle_and_blank_pages() -> None:
    assert _content(_page_with_ink([])) is None
    assert _content(_page_with_ink([(100, 100, 102, 102)])) is None  # one dot of dust
    assert _content(_page_with_ink([(100, 100, 102, 102), (300, 400, 420, 432)])) == (
        240,
        340,
        480,
        492,
    )


LANGUAGES = ("eng", "chi_sim")


@pytest.mark.parametrize("name", ["english", "mixed_scan", "two_column_scan"])
def test_the_engine_reads_the_content_box_and_its_words_land_on_the_page(samples: Samples, name: str) -> None:
    """The engine is handed only the part of the page with ink, and the words it reads come back
    where the same engine finds them on the whole page."""
    engine = RecordingEngine()
    with registered_engine("recording", lambda: engine):
        result = run(samples.data(name), engine="recording", mode="ocr", languages=LANGUAGES).pages[0]
    with open_document(samples.data(name)) as doc:
        raster = next(iter(doc.pages())).render(200)
    page = deskew(raster.image, 200)
    (width, height), (page_width, page_height) = engine.sizes[0], page.image.size
    assert width * height < 0.9 * page_width * page_height
    box = page.content
    assert box is not None and (box[0] > 3 or box[1] > 3)  # so that words not moved back would not match
    whole = get_engine("tesseract").recognize(page.image, RecognitionRequest(LANGUAGES, "page", 200))
    texts = [w.text for ln in whole.lines for w in ln.words]
    expected = {w.text: w.bbox for ln in whole.lines for w in ln.words if len(w.text) > 3 and texts.count(w.text) == 1}
    got = [(w.text, w.bbox.scaled(raster.scale)) for b in result.blocks for ln in b.lines for w in ln.words]
    matched = [(text, found) for text, found in got if text in expected]
    assert len(matched) >= 5
    assert len({text for text, _ in matched}) >= 0.95 * len(expected)  # nothing lost outside the box
    for text, found in matched:
        assert abs(found.x0 - expected[text].x0) <= 3 and abs(found.y1 - expected[text].y1) <= 3, text


@pytest.mark.parametrize("name", ["english_scan", "table_scan", "two_column_scan"])
def test_deskew_turns_the_inked_part_as_a_whole_turn_would(samples: Samples, name: str) -> None:
    """Only the part with ink is turned; there the pixels (to one grey level: OpenCV's fixed-point
    coordinates depend on where the turned part starts), and everywhere the coarse grid, are those
    of turning the whole page."""
    with open_document(samples.data(name)) as doc:
        image = next(iter(doc.pages())).render(200).image
    page = deskew(image, 200)
    assert page.angle
    whole = turn(np.asarray(image.convert("L")), page.angle, 255)
    box = page.content
    assert box is not None
    x0, y0, x1, y1 = box
    assert np.abs(page.gray[y0:y1, x0:x1].astype(int) - whole[y0:y1, x0:x1]).max() <= 1
    top, left = max(0, y0 - 100), max(0, x0 - 100)
    outside = [page.gray[:top], page.gray[y1 + 100 :], page.gray[:, :left], page.gray[:, x1 + 100 :]]
    assert sum(part.size for part in outside) > 0
    assert all((part == 255).all() for part in outside)
    grid, _ = _ink_cells(whole, _ink_threshold(np.asarray(image.convert("L"))), 4)
    assert (page.grid == grid).all()  # specks outside the turned part are never grid cells
