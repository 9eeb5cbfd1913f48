"""Open a document, select its pages, read them in order and store their figure crops: the one way
through the pipeline that the OCR task (under a lease, checkpointing each page) and `ocrqueue
convert` (no queue, writing each page as it comes) share. What becomes of a page once read is
the caller's."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ocrqueue.documents import (
    Document,
    DocumentLimits,
    DocumentMeta,
    PageResult,
    PipelineResources,
    ProcessOptions,
    open_document,
    process_page,
)


@dataclass(frozen=True)
class SelectedPages:
    """An open document and the pages its options select: ``meta`` records the selection,
    ``wanted`` holds the selected pages' indices (from 0); pages are read with ``resources`` (the
    layout model and threads; None: the process's default)."""

    document: Document
    options: ProcessOptions
    meta: DocumentMeta
    wanted: list[int]
    resources: PipelineResources | None = None

    def read(
        self,
        store_image: Callable[[str, bytes], object],
        done: Collection[int] = frozenset(),
        before_each: Callable[[], None] = lambda: None,
    ) -> Iterator[PageResult]:
        """Each wanted page not in ``done``, read, in order, once its figure crops are stored
        (``store_image(name, png)``), so a page handed on never names a crop that is missing.
        ``before_each`` runs before a page is read: a task's cancellation check, so a cancelled
        task stops between pages."""
        for page in self.document.select([i for i in self.wanted if i not in done]):
            before_each()
            result = process_page(page, self.options, self.resources)
            for name, image in result.images.items():
                store_image(name, image)
            yield result


@contextmanager
def open_selected(
    source: Path, options: ProcessOptions, limits: DocumentLimits, resources: PipelineResources | None = None
) -> Iterator[SelectedPages]:
    """``source`` opened within ``limits`` with the pages ``options`` select, to be read with
    ``resources``; raises DocumentError when it cannot be read or the selection names pages it does
    not have."""
    with open_document(source, limits) as document:
        meta = dataclasses.replace(document.meta, pages=options.pages)
        yield SelectedPages(document, options, meta, options.page_indices(meta.page_count), resources)
