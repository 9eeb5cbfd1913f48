"""Writers of a document result: Markdown, JSON, the searchable PDF, plain text, HTML, hOCR and ALTO."""
