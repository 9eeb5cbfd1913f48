"""Reading rendered pages: orientation and script, the engine choice, whole-page and region-by-region OCR."""
