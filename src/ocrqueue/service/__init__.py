"""Where the queue, storage and the document pipeline meet: OCR tasks, submissions, the kind registry."""
