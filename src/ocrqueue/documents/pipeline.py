"""process_page: one page through the stages of its path, the text layer's or OCR's.

A PDF page's own text is judged first (unless ``mode="ocr"``); the judge sends the page down the
text-layer path, the OCR path, or (``mode="text"`` without a layer) neither. Each path is a list
of named stages (documents/stages.py runs and times them); a new stage goes into its folder and
into the list here.
"""

from __future__ import annotations

from ocrqueue.documents.finish import page as finish
from ocrqueue.documents.input.pages import PageInput
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.ocr import page as ocr
from ocrqueue.documents.options import ProcessOptions
from ocrqueue.documents.resources import PipelineResources, default_resources
from ocrqueue.documents.stages import PageContext, PagePath, Stage, run_stages
from ocrqueue.documents.textlayer import page as textlayer

JUDGE: tuple[Stage, ...] = (textlayer.judge,)
TEXT_LAYER_PATH: tuple[Stage, ...] = (textlayer.read, finish.continuations)
OCR_PATH: tuple[Stage, ...] = (
    ocr.render,
    ocr.detect,
    ocr.straighten,
    ocr.rules,
    ocr.choose_engine,
    ocr.read,
    ocr.recheck_accents,
    ocr.recheck_script,
    ocr.line_scripts,
    finish.continuations,
)
PATHS: dict[PagePath, tuple[Stage, ...]] = {"text_layer": TEXT_LAYER_PATH, "ocr": OCR_PATH, "nothing": ()}


def process_page(page: PageInput, options: ProcessOptions, resources: PipelineResources | None = None) -> PageResult:
    """Turn one page into blocks; raises DocumentError for input that cannot be processed.
    ``resources`` (the layout model and threads) are the process's default unless given."""
    context = PageContext(page, options, resources or default_resources())
    if options.mode != "ocr":
        run_stages(context, JUDGE)
    run_stages(context, PATHS[context.path])
    return context.result()
