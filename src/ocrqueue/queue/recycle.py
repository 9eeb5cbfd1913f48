"""When a worker process should hand its work back and be replaced by a fresh one.

Native libraries (OCR engines, PDF renderers, model runtimes) and allocator fragmentation make a
long-lived process grow even when no Python object leaks; a process that is replaced now and then
gives all of it back. A worker checks after every task it finishes.
"""

from __future__ import annotations

from pathlib import Path

REPLACE_EXIT_CODE = 75
"""Exit status of a worker that stopped to be replaced (EX_TEMPFAIL): a supervisor starts a new one."""


def resident_mb() -> float:
    """This process's resident memory now (VmRSS), in MiB; 0 where /proc is not available."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def replace_reason(tasks_done: int, max_tasks: int, max_rss_mb: int) -> str | None:
    """Why a worker that has finished `tasks_done` tasks should be replaced now, or None."""
    if max_tasks and tasks_done >= max_tasks:
        return f"it has run {tasks_done} tasks (max_tasks_per_process {max_tasks})"
    if max_rss_mb:
        rss = resident_mb()
        if rss > max_rss_mb:
            return f"its resident memory is {rss:.0f} MB, over max_rss_mb {max_rss_mb}"
    return None
