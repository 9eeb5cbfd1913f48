"""What a supervisor records for an OCR task whose process died: the page being read."""

from __future__ import annotations

import dataclasses

from ocrqueue.queue import Store, TaskSpec
from ocrqueue.service.ocr_task import OCR_KIND, ocr_crash_message


def test_the_crash_names_the_page_after_those_done(store: Store) -> None:
    whole = store.submit(TaskSpec(OCR_KIND, {"input": "uploads/a", "options": {}})).task
    assert ocr_crash_message(whole, "SIGSEGV") == "the OCR engine crashed on page 1 (SIGSEGV)"
    assert "page 4 (SIGKILL)" in ocr_crash_message(dataclasses.replace(whole, progress_done=3), "SIGKILL")
    picked = store.submit(TaskSpec(OCR_KIND, {"input": "uploads/b", "options": {"pages": "3-4,9"}})).task
    assert "on page 3 " in ocr_crash_message(picked, "SIGSEGV")
    assert "on page 9 " in ocr_crash_message(dataclasses.replace(picked, progress_done=2), "SIGSEGV")
