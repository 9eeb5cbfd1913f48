"""The multiprocess metrics directory of a supervising process: fresh per run, dead runs of this host
removed at start, a child's live gauges dropped when it exits, and the node's exposition adding up
the children's files with this process's own metrics without naming a family twice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from ocrqueue.service.metrics import MetricsRun, ProcessesCollector, run_prefix
from ocrqueue.service.work_metrics import PAGES_READ


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_run_starts_empty_and_removes_only_this_hosts_dead_runs(tmp_path: Path) -> None:
    prefix = run_prefix()
    dead = tmp_path / f"{prefix}{dead_pid()}"
    live = tmp_path / f"{prefix}{os.getppid()}"
    other_host = tmp_path / f"elsewhere-{dead_pid()}"
    stale_own = tmp_path / f"{prefix}{os.getpid()}"
    for directory in (dead, live, other_host, stale_own):
        directory.mkdir()
        (directory / "counter_1.db").write_bytes(b"x")
    run = MetricsRun.start(tmp_path)
    assert run.directory == stale_own and list(run.directory.iterdir()) == []
    assert not dead.exists()
    assert live.exists() and other_host.exists()
    run.close()
    assert not run.directory.exists()


CHILD = """
import sys
from prometheus_client import Counter, Gauge, Histogram
Counter("demo_stage_runs", "runs", ["stage"]).labels("ocr").inc(3)
Histogram("demo_stage_seconds", "time", ["stage"]).labels("ocr").observe(0.2)
Gauge("demo_busy", "busy", multiprocess_mode="livesum").set(1)
"""


def test_children_metrics_reach_the_parent_and_a_dead_childs_live_gauges_go(tmp_path: Path) -> None:
    run = MetricsRun.start(tmp_path)
    for _ in range(2):
        subprocess.run([sys.executable, "-c", CHILD], env=run.child_environment(os.environ), check=True, timeout=60)
    pids = sorted(int(p.stem.rsplit("_", 1)[1]) for p in run.directory.glob("counter_*.db"))
    assert len(pids) == 2

    def samples() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        families = list(ProcessesCollector(run).collect())
        names = [f.name for f in families]
        assert len(names) == len(set(names))
        return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}

    seen = samples()
    assert seen[("demo_stage_runs_total", (("stage", "ocr"),))] == 6
    assert seen[("demo_stage_seconds_count", (("stage", "ocr"),))] == 2
    assert seen[("demo_busy", ())] == 2
    assert ("process_cpu_seconds_total", ()) in seen  # this process's own metrics beside them
    for pid in pids:
        run.child_exited(pid)
    after = samples()
    assert after[("demo_stage_runs_total", (("stage", "ocr"),))] == 6  # counters never go back
    assert ("demo_busy", ()) not in after
    run.close()


def test_one_family_in_the_exposition_when_the_parent_defines_the_same_metric(tmp_path: Path) -> None:
    run = MetricsRun.start(tmp_path)
    code = "from ocrqueue.service.work_metrics import PAGES_READ; PAGES_READ.labels('text_layer').inc(4)"
    subprocess.run([sys.executable, "-c", code], env=run.child_environment(os.environ), check=True, timeout=60)
    assert PAGES_READ.labels("text_layer") is not None  # this process's own copy of the same counter
    own = REGISTRY.get_sample_value("ocrqueue_pages_total", {"source": "text_layer"}) or 0.0
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ProcessesCollector(run))
    pages = [
        f for f in text_string_to_metric_families(generate_latest(registry).decode()) if f.name == "ocrqueue_pages"
    ]
    assert len(pages) == 1
    text_layer = [
        s for s in pages[0].samples if s.name == "ocrqueue_pages_total" and s.labels["source"] == "text_layer"
    ]
    assert [s.value for s in text_layer] == [own + 4]  # other tests of this process may count other sources
    run.close()
