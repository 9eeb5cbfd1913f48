"""The page pipeline as named stages: each page records the stages of its path and their times,
a stage warns through the page context, and the layout model and threads come from the resources
the caller passes in."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from ocrqueue.documents import PageResult, PipelineResources, ProcessOptions, default_resources, open_document
from ocrqueue.documents.layout.detector import LayoutBox
from ocrqueue.documents.ocr import page as ocr
from ocrqueue.documents.pipeline import JUDGE, OCR_PATH, TEXT_LAYER_PATH
from ocrqueue.documents.stages import PageContext, run_stages, stage

from .conftest import Samples
from .helpers import run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "documents.md"
OCR_STAGES = [
    "ocr.render",
    "ocr.detect",
    "ocr.straighten",
    "ocr.rules",
    "ocr.choose_engine",
    "ocr.read",
    "ocr.recheck_accents",
    "ocr.recheck_script",
    "ocr.line_scripts",
    "finish.continuations",
]


@pytest.mark.parametrize(
    ("name", "mode", "stages"),
    [
        ("chinese_pdf", "auto", ["textlayer.judge", "textlayer.read", "finish.continuations"]),
        ("english", "auto", ["textlayer.judge", *OCR_STAGES]),
        ("english", "ocr", OCR_STAGES),
        ("english", "text", ["textlayer.judge"]),
    ],
)
def test_a_page_records_the_stages_of_its_path_in_order_with_their_times(
    samples: Samples, name: str, mode: str, stages: list[str]
) -> None:
    page = run(samples.data(name), mode=mode).pages[0]
    assert [t.stage for t in page.timings] == stages
    assert all(t.ms >= 0 for t in page.timings)
    assert page.to_dict()["timings"] == [{"stage": t.stage, "ms": t.ms} for t in page.timings]


def test_timings_round_trip_and_a_checkpoint_from_before_them_still_loads(samples: Samples) -> None:
    page = run(samples.data("chinese_pdf")).pages[0]
    saved = json.loads(json.dumps(page.to_dict()))
    loaded = PageResult.from_dict(saved)
    assert loaded.timings == page.timings
    del saved["timings"]
    older = PageResult.from_dict(saved)
    assert older.timings == () and older == loaded  # timings are measured: not part of what a page is


def test_a_stage_warns_through_the_context_and_is_timed(samples: Samples) -> None:
    @stage("test.note")
    def note(context: PageContext) -> None:
        """Reads the raster; adds a warning."""
        context.warn(f"rendered at {context.dpi} dpi")

    with open_document(samples.data("chinese_pdf")) as document:  # a PDF page renders at the dpi asked for
        pages = document.pages()
        context = PageContext(next(pages), ProcessOptions(mode="ocr", dpi=100), default_resources())
        run_stages(context, (ocr.render, note))
        result = context.result()
        pages.close()
    assert [t.stage for t in result.timings] == ["ocr.render", "test.note"]
    assert result.warnings == ("rendered at 100 dpi",) and result.dpi == 100


def test_every_stage_says_what_it_reads_and_adds_and_is_documented() -> None:
    documented = DOCS.read_text()
    for each in (*JUDGE, *TEXT_LAYER_PATH, *OCR_PATH):
        assert each.summary.startswith("Reads ") and "; adds " in each.summary, each.name
        assert f"`{each.name}`" in documented, each.name


@dataclass
class CountingLoader:
    """A layout model loader that counts its loads; its model finds nothing."""

    loads: int = 0

    def __call__(self) -> CountingLoader:
        self.loads += 1
        return self

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        return []


def test_the_layout_model_is_loaded_once_on_the_first_page_that_needs_it(samples: Samples) -> None:
    loader = CountingLoader()
    with PipelineResources(layout_model=loader) as resources:
        run(samples.data("english"), resources, mode="ocr")
        assert loader.loads == 0  # a page of prose needs no model
        run(samples.data("figure"), resources, mode="ocr")
        run(samples.data("unruled_table"), resources, mode="ocr")
    assert loader.loads == 1


def test_closed_resources_refuse_more_work() -> None:
    resources = PipelineResources(layout_model=CountingLoader())
    assert resources.beside(lambda: 1).result(timeout=20) == 1
    resources.close()
    with pytest.raises(RuntimeError, match="closed"):
        resources.beside(lambda: 1)
    with pytest.raises(RuntimeError, match="closed"):
        resources.layout_model()
