"""Engines use this process's share of the cores: its affinity mask capped by OMP_THREAD_LIMIT, and
supervised worker processes split the machine's cores between them."""

from __future__ import annotations

import os

import pytest

from ocrqueue.documents.engines.cpus import THREAD_LIMIT_VARIABLE, thread_share, usable_cpus
from ocrqueue.service.runtime import worker_environment

AFFINITY = len(os.sched_getaffinity(0))


def test_usable_cpus_is_the_affinity_mask_without_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREAD_LIMIT_VARIABLE, raising=False)
    assert usable_cpus() == AFFINITY


@pytest.mark.parametrize(("limit", "expected"), [("1", 1), ("999", AFFINITY), ("0", AFFINITY), ("x", AFFINITY)])
def test_omp_thread_limit_caps_usable_cpus(monkeypatch: pytest.MonkeyPatch, limit: str, expected: int) -> None:
    monkeypatch.setenv(THREAD_LIMIT_VARIABLE, limit)
    assert usable_cpus() == expected


def test_the_share_divides_the_cores_and_never_drops_below_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREAD_LIMIT_VARIABLE, "8")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert [thread_share(slots) for slots in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]


def test_supervised_workers_get_their_share_unless_the_operator_set_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREAD_LIMIT_VARIABLE, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)))
    assert worker_environment({"PATH": "/bin"}, 2) == {"PATH": "/bin", THREAD_LIMIT_VARIABLE: "2"}
    assert worker_environment({THREAD_LIMIT_VARIABLE: "3"}, 2)[THREAD_LIMIT_VARIABLE] == "3"
