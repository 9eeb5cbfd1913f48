"""ocrqueue: a self-hosted document OCR service on a durable task queue."""

__version__ = "0.1.0"
"""The only place the version is written: pyproject.toml reads it from here (`tool.setuptools.dynamic`)."""
