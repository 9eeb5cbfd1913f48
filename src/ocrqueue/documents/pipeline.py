"""process_page: choose the text-layer or OCR path for one page and run it."""

from __future__ import annotations

from dataclasses import replace

from ocrqueue.documents.input.pages import PageInput, TextLayer
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.ocr.page import from_ocr
from ocrqueue.documents.options import ProcessOptions
from ocrqueue.documents.scripts import languages_for, scripts_in
from ocrqueue.documents.textlayer.judge import text_layer_problem
from ocrqueue.documents.textlayer.page import from_text_layer


def process_page(page: PageInput, options: ProcessOptions) -> PageResult:
    """Turn one page into blocks; raises DocumentError for input that cannot be processed."""
    warnings: list[str] = []
    if options.mode != "ocr":
        layer = page.text_layer(options.char_boxes)
        problem = text_layer_problem(layer)
        if layer is not None and (problem is None or options.mode == "text"):
            if problem is not None:
                warnings.append(f"text layer used as requested although {problem}")
            return _with_scripts(from_text_layer(page, layer, options.tables, options.dpi, warnings), layer)
        if options.mode == "text":
            warnings.append(f"{problem}; nothing extracted because mode is 'text'")
            return PageResult(page.index, page.width, page.height, "text_layer", (), None, tuple(warnings))
        if layer is not None and problem is not None:
            warnings.append(f"OCR used: {problem}")
    return from_ocr(page, options, warnings)


def _with_scripts(result: PageResult, layer: TextLayer) -> PageResult:
    """A text layer's scripts are those of its characters; its languages, the ones that write them."""
    scripts = scripts_in("".join(line.text for line in layer.lines))
    return replace(result, scripts=scripts, languages=languages_for(scripts))
