"""How many CPUs this process may use: its affinity mask and its cgroup's CPU quota (a container's
`--cpus`), not the host's count; for one engine call also capped by `OMP_THREAD_LIMIT`.

`OMP_THREAD_LIMIT` is OpenMP's own knob, read by Tesseract's OpenMP runtime when it loads; honouring it
here too gives every engine (onnxruntime's intra-op threads for RapidOCR) one setting. Worker
processes that share a machine each get a share of its cores (`thread_share`), so that N processes
do not each start as many threads as there are cores and spin against each other.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

THREAD_LIMIT_VARIABLE = "OMP_THREAD_LIMIT"
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def _affinity_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _quota_in(directory: Path) -> float | None:
    """CPUs the cgroup `directory` may use per period (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`), if capped."""
    try:
        if (directory / "cpu.max").is_file():
            quota, _, period = (directory / "cpu.max").read_text().partition(" ")
            return None if quota == "max" else int(quota) / int(period)
        quota_us = int((directory / "cpu.cfs_quota_us").read_text())
        return None if quota_us <= 0 else quota_us / int((directory / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None


def _cgroup_directories(root: Path, proc_cgroup: Path) -> list[Path]:
    """This process's CPU cgroup and its ancestors, under v2 (`0::/path`) or v1 (`N:cpu,cpuacct:/path`).
    Inside a container the cgroup is often mounted at its own root, which the ancestors include."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return []
    found: list[Path] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        names = controllers.split(",")
        if controllers == "":
            mounts = [root, root / "unified"]
        elif "cpu" in names:
            mounts = [root / controllers, root / "cpu"]
        else:
            continue
        relative = Path(path.lstrip("/"))
        for mount in mounts:
            found += [mount / part for part in (relative, *relative.parents)]
    return found


def cgroup_cpus(root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int | None:
    """The CPU quota of this process's cgroups, rounded up to whole CPUs; None when nothing caps it."""
    quotas = [q for q in (_quota_in(d) for d in _cgroup_directories(root, proc_cgroup)) if q is not None]
    return max(1, math.ceil(min(quotas))) if quotas else None


def available_cpus() -> int:
    """CPUs this process may keep busy: affinity, capped by the cgroup quota. Processes to start go by this."""
    quota = cgroup_cpus()
    return _affinity_cpus() if quota is None else min(_affinity_cpus(), quota)


def usable_cpus() -> int:
    """Threads for one engine call: `available_cpus`, capped by OMP_THREAD_LIMIT."""
    limit = os.environ.get(THREAD_LIMIT_VARIABLE, "").strip()
    cpus = available_cpus()
    return max(1, min(cpus, int(limit))) if limit.isdigit() and int(limit) > 0 else cpus


def thread_share(engine_slots: int) -> int:
    """Threads per engine call when `engine_slots` calls may run at once on this machine's cores."""
    return max(1, usable_cpus() // max(1, engine_slots))
