"""Chaos runs: documents drained through the HTTP API while processes and the database are killed.

The short runs (about 30 documents each) are part of the normal suite. `OCRQUEUE_CHAOS=full`
(`make chaos`) runs the long ones: 300+ documents of 1-50 pages on PostgreSQL with more faults.
Each run prints its summary table (see docs/chaos.md); run with `-s` to see it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.postgres import throwaway_cluster
from support.vlm_standin import running_standin

from chaos.harness import ChaosRun, make_documents, seeded_schedule
from ocrqueue.queue import open_store
from ocrqueue.service.schema import upgrade_all

FULL = os.environ.get("OCRQUEUE_CHAOS", "") == "full"
SEED = int(os.environ.get("OCRQUEUE_CHAOS_SEED", "20261129"))

pytestmark = [pytest.mark.acceptance, pytest.mark.slow, pytest.mark.timeout(1200 if FULL else 300)]


def _finish(run: ChaosRun, tmp_path: Path) -> None:
    report = run.report
    table = report.table()
    print("\n" + table)
    (tmp_path / "summary.txt").write_text(table + "\n")
    summary_dir = os.environ.get("OCRQUEUE_CHAOS_SUMMARY_DIR")
    if summary_dir:
        Path(summary_dir).mkdir(parents=True, exist_ok=True)
        (Path(summary_dir) / f"chaos-{report.backend}.txt").write_text(table + "\n")
        (Path(summary_dir) / f"chaos-{report.backend}.json").write_text(report.to_json() + "\n")
    assert report.problems == [], table


def test_chaos_postgresql(tmp_path: Path) -> None:
    if FULL:
        docs = make_documents(320, max_pages=50, scan_share=0.04, seed=SEED, vlm=6, big_pages=300)
        counts = {"kill worker": 5, "pause worker": 3, "kill api": 2, "restart postgresql": 1}
        counts |= {"model server 503s": 2, "model server stall": 1}
    else:
        docs = make_documents(30, max_pages=8, scan_share=0.08, seed=SEED, vlm=3)
        counts = {"kill worker": 2, "pause worker": 1, "kill api": 1, "restart postgresql": 1}
        counts |= {"model server 503s": 1, "model server stall": 1}
    schedule = seeded_schedule(SEED, counts, 0.05, 0.7 if FULL else 0.6)
    with throwaway_cluster() as cluster, running_standin() as standin:
        upgrade_all(cluster.admin_url)
        store = open_store(cluster.admin_url)
        try:
            run = ChaosRun(
                tmp_path, cluster.admin_url, store, docs, workers=3, cluster=cluster, seed=SEED,
                submit_interval=0.3 if FULL else 1.0, standin=standin, ocr_wait=8 if FULL else 3,
            )  # fmt: skip
            run.run(schedule, drain_timeout=600 if FULL else 150)
        finally:
            store.close()
    _finish(run, tmp_path)


def test_chaos_sqlite(tmp_path: Path) -> None:
    if FULL:
        docs = make_documents(100, max_pages=30, scan_share=0.03, seed=SEED + 1, big_pages=300)
        counts = {"kill serve": 4}
    else:
        docs = make_documents(24, max_pages=8, scan_share=0.08, seed=SEED + 1)
        counts = {"kill serve": 2}
    url = f"sqlite:///{tmp_path / 'queue.db'}"
    upgrade_all(url)
    store = open_store(url)
    try:
        run = ChaosRun(
            tmp_path,
            url,
            store,
            docs,
            workers=0,
            embedded_slots=2,
            seed=SEED,
            submit_interval=0.3 if FULL else 0.4,
            ocr_wait=8 if FULL else 3,
        )
        run.run(seeded_schedule(SEED, counts, 0.1, 0.6), drain_timeout=600 if FULL else 120)
    finally:
        store.close()
    _finish(run, tmp_path)
