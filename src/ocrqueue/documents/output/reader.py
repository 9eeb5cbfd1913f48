"""Read a stored document result's pages one at a time, so memory does not grow with its page count
(the counterpart of writer.py for results that are read back, e.g. to make the searchable PDF)."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from ocrqueue.documents.model import PageResult

_CHUNK = 1 << 16
_SPACE = " \t\r\n"


class _Text:
    """Decoded text of a binary stream, a chunk at a time, with JSON values taken off its front."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._ended = False

    def _more(self) -> bool:
        if self._ended:
            return False
        chunk = self._stream.read(_CHUNK)
        self._ended = not chunk
        self._buffer += self._decoder.decode(chunk, final=self._ended)
        return True

    def punctuation(self) -> str:
        """The next non-space character, taken."""
        while True:
            stripped = self._buffer.lstrip(_SPACE)
            if stripped:
                self._buffer = stripped[1:]
                return stripped[0]
            self._buffer = ""
            if not self._more():
                raise ValueError("the result JSON ends too early")

    def peek(self) -> str:
        char = self.punctuation()
        self._buffer = char + self._buffer
        return char

    def value(self) -> Any:
        """The next JSON value, taken (read on until it is complete)."""
        decoder = json.JSONDecoder()
        while True:
            self._buffer = self._buffer.lstrip(_SPACE)
            try:
                value, end = decoder.raw_decode(self._buffer)
            except json.JSONDecodeError:
                if not self._more():
                    raise
                continue
            if end == len(self._buffer) and not self._ended and not isinstance(value, dict | list | str):
                self._more()  # a number may go on in the next chunk
                continue
            self._buffer = self._buffer[end:]
            return value


def iter_result_pages(stream: BinaryIO) -> Iterator[PageResult]:
    """The pages of a document result's JSON (`DocumentResult.to_json()` or `ResultWriter`), in order."""
    text = _Text(stream)
    if text.punctuation() != "{":
        raise ValueError("the result JSON is not an object")
    while text.peek() != "}":
        key = text.value()
        if text.punctuation() != ":":
            raise ValueError("the result JSON is malformed")
        if key == "pages":
            if text.punctuation() != "[":
                raise ValueError("the result's pages are not a list")
            while text.peek() != "]":
                yield PageResult.from_dict(text.value())
                if text.peek() == ",":
                    text.punctuation()
            text.punctuation()
        else:
            text.value()
        if text.peek() == ",":
            text.punctuation()
