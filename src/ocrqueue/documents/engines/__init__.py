"""OCR engines behind one small interface (base.py), declaring what they can do, found by name (registry.py)."""

from ocrqueue.documents.engines.base import (
    EngineCapabilities,
    EngineOutput,
    OcrEngine,
    Orientation,
    OrientationDetector,
    RecognitionRequest,
)
from ocrqueue.documents.engines.registry import (
    ENTRY_POINT_GROUP,
    EngineSpec,
    available_engines,
    engine_capabilities,
    first_engine_with,
    get_engine,
    orientation_detector,
    register_engine,
    registered_engine,
    unregister_engine,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "EngineCapabilities",
    "EngineOutput",
    "EngineSpec",
    "OcrEngine",
    "Orientation",
    "OrientationDetector",
    "RecognitionRequest",
    "available_engines",
    "engine_capabilities",
    "first_engine_with",
    "get_engine",
    "orientation_detector",
    "register_engine",
    "registered_engine",
    "unregister_engine",
]
