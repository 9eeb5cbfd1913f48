"""Engines use this process's share of the cores: its affinity mask and cgroup CPU quota capped by
OMP_THREAD_LIMIT, and supervised worker processes split the machine's cores between them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ocrqueue.documents.engines.cpus import THREAD_LIMIT_VARIABLE, cgroup_cpus, thread_share, usable_cpus
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


def test_cgroup_v2_quota_is_read_from_the_process_cgroup_and_its_ancestors(tmp_path: Path) -> None:
    (tmp_path / "proc").write_text("0::/machine/box\n")
    (tmp_path / "cg" / "machine" / "box").mkdir(parents=True)
    (tmp_path / "cg" / "machine" / "box" / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpus(tmp_path / "cg", tmp_path / "proc") is None
    (tmp_path / "cg" / "machine" / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpus(tmp_path / "cg", tmp_path / "proc") == 2


def test_cgroup_v1_quota_counts_and_minus_one_means_none(tmp_path: Path) -> None:
    (tmp_path / "proc").write_text("5:memory:/x\n3:cpu,cpuacct:/\n")
    mount = tmp_path / "cg" / "cpu,cpuacct"
    mount.mkdir(parents=True)
    (mount / "cpu.cfs_period_us").write_text("100000\n")
    (mount / "cpu.cfs_quota_us").write_text("-1\n")
    assert cgroup_cpus(tmp_path / "cg", tmp_path / "proc") is None
    (mount / "cpu.cfs_quota_us").write_text("50000\n")
    assert cgroup_cpus(tmp_path / "cg", tmp_path / "proc") == 1
    assert cgroup_cpus(tmp_path / "cg", tmp_path / "missing") is None
