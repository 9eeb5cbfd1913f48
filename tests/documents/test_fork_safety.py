"""A process forked after reading a page can read pages too: the layout threads are started anew in
the child, whose copy of the parent's pool has no threads behind it."""

from __future__ import annotations

import multiprocessing
import os

from ocrqueue.documents import default_resources


def _child_uses_the_layout_threads() -> None:
    try:
        answered = default_resources().beside(lambda: 42).result(timeout=20) == 42
    except TimeoutError:
        answered = False
    os._exit(0 if answered else 1)


def test_a_forked_child_gets_layout_threads() -> None:
    for _ in range(8):  # the parent's pool holds live threads, as after reading pages
        assert default_resources().beside(lambda: 1).result(timeout=20) == 1
    child = multiprocessing.get_context("fork").Process(target=_child_uses_the_layout_threads)
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        child.join()
    assert child.exitcode == 0, "the forked child's layout threads never ran its work"
