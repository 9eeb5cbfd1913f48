"""The page pipeline's parts: one page context, named stages over it, and the runner that times them.

A stage is a function of the context, named ``<folder>.<step>`` (``ocr.render``,
``textlayer.judge``) and documented in one line with what it reads from the context and what it
adds. ``run_stages`` runs a list of them in order and records each one's wall time, which the
page's JSON carries as ``timings`` (docs/documents.md, "The stages of a page"). A stage says what
went wrong or was done unasked with ``context.warn``: the page's warnings are the context's.
pipeline.py holds the lists; the stages live with their folder (textlayer/page.py, ocr/page.py,
finish/page.py for those both paths end with).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from ocrqueue.documents.engines import OcrEngine
from ocrqueue.documents.input.pages import PageInput, Raster, TextLayer
from ocrqueue.documents.layout.raster import PageLayout, Rules
from ocrqueue.documents.layout.straighten import Straightened
from ocrqueue.documents.model import Block, PageResult, StageTiming
from ocrqueue.documents.options import ProcessOptions
from ocrqueue.documents.resources import PipelineResources
from ocrqueue.documents.scripts import scripts_of_languages
from ocrqueue.documents.turns import blocks_delivered

T = TypeVar("T")
PagePath = Literal["text_layer", "ocr", "nothing"]


@dataclass
class PageContext:
    """One page on its way through the stages: what it starts with, then what each stage adds."""

    page: PageInput
    options: ProcessOptions
    resources: PipelineResources
    path: PagePath = "ocr"  # textlayer.judge: the page's own text is read, or it is rendered, or nothing is
    layer: TextLayer | None = None  # textlayer.judge
    raster: Raster | None = None  # ocr.render; ocr.detect turns it upright
    rotation: int = 0  # ocr.detect: the stages after it work on the page turned upright
    scripts: tuple[str, ...] = ()  # ocr.detect, ocr.recheck_script, textlayer.read
    straight: Straightened | None = None  # ocr.straighten
    rules: Rules | None = None  # ocr.rules (None: tables are not looked for)
    engine: OcrEngine | None = None  # ocr.choose_engine
    languages: tuple[str, ...] = ()  # ocr.choose_engine, textlayer.read
    source: str = "text_layer"  # ocr.read: the engine's name
    blocks: tuple[Block, ...] = ()  # ocr.read, textlayer.read; finish.continuations marks them
    # ocr.read: the layout found beside the first reading, with the straightened page and rules it is of
    layout: tuple[Straightened, Rules | None, Future[PageLayout]] | None = None
    images: dict[str, bytes] = field(default_factory=dict)  # figure crops, with the blocks
    warnings: list[str] = field(default_factory=list)  # any stage, through warn()
    timings: list[StageTiming] = field(default_factory=list)  # run_stages

    @property
    def dpi(self) -> int | None:
        """The resolution the page was rendered at; None on the text-layer path."""
        return self.raster.dpi if self.raster is not None else None

    @property
    def size(self) -> tuple[float, float]:
        """The page's width and height in points, as read: upright."""
        page = self.page
        return (page.height, page.width) if self.rotation in (90, 270) else (page.width, page.height)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def result(self) -> PageResult:
        """The page as the stages left it, its boxes on the page as delivered (turns.py). A page's
        scripts are those seen on it or, when none were, those of the languages it was read with."""
        return PageResult(
            self.page.index,
            self.page.width,
            self.page.height,
            self.source,
            blocks_delivered(self.blocks, self.rotation, self.size),
            self.dpi,
            tuple(self.warnings),
            self.images,
            self.scripts or scripts_of_languages(self.languages),
            self.languages,
            self.rotation,
            tuple(self.timings),
        )


def needed(value: T | None, what: str) -> T:
    """``value``, which an earlier stage adds; an error naming it when the stages ran out of order."""
    if value is None:
        raise RuntimeError(f"no {what} yet: the stage that adds it has not run")
    return value


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[PageContext], None]

    @property
    def summary(self) -> str:
        """The first line of the stage's docstring: what it reads and what it adds."""
        return (self.run.__doc__ or "").strip().splitlines()[0]


def stage(name: str) -> Callable[[Callable[[PageContext], None]], Stage]:
    """Make a function of the page context a stage named ``name``."""

    def named(run: Callable[[PageContext], None]) -> Stage:
        return Stage(name, run)

    return named


def run_stages(context: PageContext, stages: Sequence[Stage]) -> None:
    """Run ``stages`` in order over ``context``, each one's wall time added to its timings."""
    for current in stages:
        started = time.perf_counter()
        current.run(context)
        context.timings.append(StageTiming(current.name, round((time.perf_counter() - started) * 1000, 1)))
