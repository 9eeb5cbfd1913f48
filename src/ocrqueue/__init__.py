"""ocrqueue: a self-hosted document OCR service on a durable task queue."""

__version__ = "0.1.0"
