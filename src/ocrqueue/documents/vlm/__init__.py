"""A client for OpenAI-compatible vision-model servers (GLM-OCR and others), with a circuit breaker."""

from ocrqueue.documents.vlm.breaker import BreakerState, BreakerStatus, CircuitBreaker
from ocrqueue.documents.vlm.client import ChatAnswer, VlmClient, VlmConfig, shared_client, shared_clients
from ocrqueue.documents.vlm.errors import ModelCircuitOpen, ModelRequestRejected, ModelServerUnavailable

__all__ = [
    "BreakerState",
    "BreakerStatus",
    "ChatAnswer",
    "CircuitBreaker",
    "ModelCircuitOpen",
    "ModelRequestRejected",
    "ModelServerUnavailable",
    "VlmClient",
    "VlmConfig",
    "shared_client",
    "shared_clients",
]
