"""OCR engines behind one small interface, chosen by name."""

from ocrqueue.documents.engines.base import (
    EngineOutput,
    OcrEngine,
    RecognitionRequest,
    available_engines,
    get_engine,
)

__all__ = ["EngineOutput", "OcrEngine", "RecognitionRequest", "available_engines", "get_engine"]
