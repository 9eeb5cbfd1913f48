"""A process forked after reading a page can read pages too: the layout thread pool is made anew in
the child, whose copy of the parent's pool has no threads behind it."""

from __future__ import annotations

import multiprocessing
import os

from ocrqueue.documents.ocr import whole_page as ocrpage


def _child_uses_the_layout_pool() -> None:
    try:
        answered = ocrpage._LAYOUT_POOL.submit(lambda: 42).result(timeout=20) == 42
    except TimeoutError:
        answered = False
    os._exit(0 if answered else 1)


def test_a_forked_child_gets_a_layout_pool_with_threads() -> None:
    for _ in range(8):  # the parent's pool holds live threads, as after reading pages
        assert ocrpage._LAYOUT_POOL.submit(lambda: 1).result(timeout=20) == 1
    child = multiprocessing.get_context("fork").Process(target=_child_uses_the_layout_pool)
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        child.join()
    assert child.exitcode == 0, "the forked child's layout pool never ran its work"
