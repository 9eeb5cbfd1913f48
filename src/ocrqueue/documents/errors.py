"""Errors raised for input that can never be processed, whatever the number of retries.

Every error carries a stable machine-readable ``code`` (for API clients and metrics) and a message
written for the person who uploaded the file. The task handler maps the whole family onto the
queue's permanent-error class, so nothing here knows about the queue.
"""

from __future__ import annotations


class DocumentError(Exception):
    """Base class: the input cannot be turned into a document result."""

    code: str = "document_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EmptyDocumentError(DocumentError):
    code = "empty"


class UnsupportedTypeError(DocumentError):
    code = "unsupported_type"


class CorruptDocumentError(DocumentError):
    code = "corrupt"


class EncryptedPdfError(DocumentError):
    code = "encrypted_pdf"


class TooLargeError(DocumentError):
    """The file itself is larger than the configured byte limit."""

    code = "too_large"


class TooManyPagesError(DocumentError):
    code = "too_many_pages"


class TooManyPixelsError(DocumentError):
    """A page would decode or render to more pixels than allowed (decompression bombs land here)."""

    code = "too_many_pixels"


class TooFewPixelsError(DocumentError):
    """A page too thin or too small to hold anything readable (a 1-pixel strip, a zero-area page)."""

    code = "too_few_pixels"


class PageRenderError(DocumentError):
    """One page could not be decoded or rendered although the file opened."""

    code = "page_failed"


class UnknownEngineError(DocumentError):
    code = "unknown_engine"


class InvalidOptionsError(DocumentError):
    code = "invalid_options"
