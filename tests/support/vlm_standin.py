"""A stand-in for an OpenAI-compatible model server (GLM-OCR on vLLM/SGLang/Ollama), for tests.

It speaks the same protocol — `POST /v1/chat/completions` with one user message holding an
`image_url` data URI and a text prompt, `GET /v1/models` — and answers deterministically:
`Text Recognition:` runs the in-process Tesseract engine on the received image (so answers are
real readings), `Table Recognition:` returns a fixed HTML table (the sample table's), `Formula
Recognition:` returns LaTeX, any other prompt (a vision question) gets "Q: <question> A: <text read>".

Controls: `fail_next(n, status, retry_after)`, `go_down()` / `recover()` (every request, probes
included, answers 503), `stall(seconds)`; it records request bodies, counts requests and the peak
number in flight.
"""

from __future__ import annotations

import base64
import contextlib
import io
import threading
from collections.abc import Iterator
from typing import Any

from data.generate import TABLE
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from PIL import Image

from ocrqueue.documents.engines.base import RecognitionRequest
from ocrqueue.documents.engines.tesseract import TesseractEngine
from support.server import serving
from support.waiting import wait_for

FORMULA_LATEX = r"E = mc^{2}"
TABLE_HTML = (
    "<table>" + "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in TABLE) + "</table>"
)


class StandIn:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.engine = TesseractEngine()
        self.bodies: list[dict[str, Any]] = []
        self.completions = 0
        self.model_listings = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self._failures: list[tuple[int, float | None]] = []
        self._down = False
        self._stall = 0.0
        self._wake = threading.Event()
        self.base_url = ""
        self.app = self._build()

    # -- controls -------------------------------------------------------------------------------
    def fail_next(self, n: int, status: int = 503, retry_after: float | None = None) -> None:
        with self.lock:
            self._failures.extend([(status, retry_after)] * n)

    def go_down(self) -> None:
        with self.lock:
            self._down = True

    def recover(self) -> None:
        """Answer normally again; stalled requests are let go at once."""
        with self.lock:
            self._down = False
            self._failures.clear()
            self._stall = 0.0
            self._wake.set()
            self._wake = threading.Event()

    def stall(self, seconds: float) -> None:
        with self.lock:
            self._stall = seconds

    def reset(self) -> None:
        self.recover()
        wait_for(lambda: self.in_flight == 0, timeout=10, what="stand-in requests to finish")
        with self.lock:
            self.bodies.clear()
            self.completions = self.model_listings = self.peak_in_flight = 0

    def close(self) -> None:
        self.recover()

    # -- the protocol ---------------------------------------------------------------------------
    def _answer(self, prompt: str, image: Image.Image) -> str:
        if prompt == "Table Recognition:":
            return f"```html\n{TABLE_HTML}\n```"
        if prompt == "Formula Recognition:":
            return f"$${FORMULA_LATEX}$$"
        out = self.engine.recognize(image, RecognitionRequest(("eng",), "text", 200))
        text = "\n".join(line.text for line in out.lines)
        if prompt == "Text Recognition:":
            return text
        return f"Q: {prompt} A: {' '.join(text.split())}"

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        def models() -> JSONResponse:
            with self.lock:
                self.model_listings += 1
                down = self._down
            if down:
                return JSONResponse({"error": {"message": "engine is down"}}, status_code=503)
            return JSONResponse({"object": "list", "data": [{"id": "glm-ocr", "object": "model"}]})

        @app.post("/v1/chat/completions")
        def completions(body: dict[str, Any], request: Request) -> JSONResponse:
            with self.lock:
                self.completions += 1
                self.bodies.append(body)
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                failure = self._failures.pop(0) if self._failures else ((503, None) if self._down else None)
                stall, wake = self._stall, self._wake
            try:
                if stall:
                    wake.wait(stall)
                if failure is not None:
                    status, retry_after = failure
                    headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else None
                    message = "image is not valid for this model" if status == 400 else f"stand-in failing ({status})"
                    return JSONResponse({"error": {"message": message}}, status_code=status, headers=headers)
                content = body["messages"][0]["content"]
                url = next(part["image_url"]["url"] for part in content if part["type"] == "image_url")
                prompt = next(part["text"] for part in content if part["type"] == "text")
                image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
                image.load()
                text = self._answer(prompt, image)
                return JSONResponse(
                    {
                        "id": f"chatcmpl-{self.completions}",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 100, "completion_tokens": len(text.split())},
                    }
                )
            finally:
                with self.lock:
                    self.in_flight -= 1

        return app


@contextlib.contextmanager
def running_standin() -> Iterator[StandIn]:
    """A stand-in on a free loopback port; `standin.base_url` ends in /v1."""
    standin = StandIn()
    with serving(standin.app) as url:
        standin.base_url = f"{url}/v1"
        try:
            yield standin
        finally:
            standin.close()
