"""The `vlm` engine: each region crop goes to a vision model with GLM-OCR's task prompt.

Text regions and table cells are sent with `Text Recognition:` and come back as lines (placed on
the crop's ink rows, see vlm/lines.py); whole tables with `Table Recognition:` come back as HTML or
Markdown in `markup` (plus one line per row); formulas with `Formula Recognition:` come back as
LaTeX in `markup` (and as the text of one line). Languages are ignored: the model reads what it sees.
Errors are the client's: `ModelServerUnavailable` (transient), `ModelCircuitOpen` (breaker open),
`ModelRequestRejected` (a `DocumentError`, permanent).
"""

from __future__ import annotations

from PIL import Image

from ocrqueue.documents.engines.base import EngineCapabilities, EngineOutput, RecognitionRequest
from ocrqueue.documents.scripts import SCRIPT_LANGUAGES
from ocrqueue.documents.vlm.client import VlmClient
from ocrqueue.documents.vlm.lines import place_lines
from ocrqueue.documents.vlm.prompts import clean_formula, prompt_for, strip_fence, table_lines, text_lines

# Each layout region is cropped and sent with its task prompt; ruled tables go to the model whole
# (`Table Recognition:`), not cell by cell. It reads what it sees: every script, no languages asked.
# Its word boxes are placed on the crop's ink, not measured; it detects no orientation, so the
# first look asks the engine that does (documents/ocr/engine_choice.py).
VLM_CAPABILITIES = EngineCapabilities(
    scripts=frozenset(SCRIPT_LANGUAGES),
    reads_regions=True,
    reads_whole_tables=True,
    needs_model_server=True,
)


class VlmEngine:
    name = "vlm"
    capabilities = VLM_CAPABILITIES

    def __init__(self, client: VlmClient, max_tokens: int | None = None) -> None:
        self.client = client
        self.max_tokens = max_tokens

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        if image.width < 2 or image.height < 2:
            return EngineOutput(())
        answer = self.client.complete(image, prompt_for(request.task), max_tokens=self.max_tokens)
        if request.task == "formula":
            latex = clean_formula(answer.text)
            return EngineOutput(place_lines(image, [latex]) if latex else (), latex or None)
        if request.task == "table":
            markup = strip_fence(answer.text)
            return EngineOutput(place_lines(image, table_lines(markup)), markup or None)
        return EngineOutput(place_lines(image, text_lines(answer.text)))
