"""The text-layer path: judge whether a PDF's own text is good, and build a page result from it without OCR."""
