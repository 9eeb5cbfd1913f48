"""The OCR pipeline: bytes in, a document result (JSON and Markdown) out, page by page.

Typical use by a task handler::

    with open_document(path, limits) as doc:
        for page in doc.select(pages_not_done):
            result = process_page(page, options, resources)  # resources: PipelineResources
            checkpoint(result.to_dict(), result.images)
    with ResultWriter(doc.meta, json_file, markdown_file) as writer:
        for result in checkpointed_results_in_order:
            writer.add(result)

It knows nothing about queues or HTTP; every failure caused by the input is a DocumentError.
"""

from ocrqueue.documents.engines import (
    EngineCapabilities,
    EngineOutput,
    EngineSpec,
    OcrEngine,
    RecognitionRequest,
    available_engines,
    get_engine,
    register_engine,
    registered_engine,
    unregister_engine,
)
from ocrqueue.documents.errors import (
    CorruptDocumentError,
    DocumentError,
    EmptyDocumentError,
    EncryptedPdfError,
    InvalidOptionsError,
    PageRenderError,
    TooFewPixelsError,
    TooLargeError,
    TooManyPagesError,
    TooManyPixelsError,
    UnknownEngineError,
    UnsupportedTypeError,
)
from ocrqueue.documents.input.document import Document, count_pages, open_document
from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.input.page_buffers import keep_page_buffers
from ocrqueue.documents.input.pagerange import PageRangeError, PageSelection
from ocrqueue.documents.input.pages import PageInput
from ocrqueue.documents.input.sniff import InputFormat, sniff_format
from ocrqueue.documents.model import (
    SCHEMA_VERSION,
    Block,
    DocumentMeta,
    Line,
    PageResult,
    StageTiming,
    Table,
    TableCell,
    Word,
)
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.output.result import DocumentResult, assemble
from ocrqueue.documents.output.writer import ResultWriter
from ocrqueue.documents.pipeline import process_page
from ocrqueue.documents.resources import PipelineResources, default_resources

__all__ = [
    "AUTO",
    "SCHEMA_VERSION",
    "Block",
    "CorruptDocumentError",
    "Document",
    "DocumentError",
    "DocumentLimits",
    "DocumentMeta",
    "DocumentResult",
    "EmptyDocumentError",
    "EncryptedPdfError",
    "EngineCapabilities",
    "EngineOutput",
    "EngineSpec",
    "InputFormat",
    "InvalidOptionsError",
    "Line",
    "OcrEngine",
    "PageInput",
    "PageRangeError",
    "PageRenderError",
    "PageResult",
    "PageSelection",
    "PipelineResources",
    "ProcessOptions",
    "RecognitionRequest",
    "ResultWriter",
    "StageTiming",
    "Table",
    "TableCell",
    "TooFewPixelsError",
    "TooLargeError",
    "TooManyPagesError",
    "TooManyPixelsError",
    "UnknownEngineError",
    "UnsupportedTypeError",
    "Word",
    "assemble",
    "available_engines",
    "count_pages",
    "default_resources",
    "get_engine",
    "keep_page_buffers",
    "open_document",
    "process_page",
    "register_engine",
    "registered_engine",
    "sniff_format",
    "unregister_engine",
]
