"""Tuning knobs of the queue library, with the defaults it ships.

| option                  | default | meaning                                                       |
|-------------------------|---------|---------------------------------------------------------------|
| lease_seconds           | 20      | a claim lasts this long without a heartbeat                   |
| heartbeat_seconds       | 5       | how often a worker renews all its leases in one statement     |
| reaper_seconds          | 10      | mean reaper interval, jittered ±50% per worker                |
| poll_seconds            | 1       | longest idle wait between claims when no wake-up arrives      |
| shutdown_grace_seconds  | 10      | on SIGTERM, time running tasks get before they are released   |
| concurrency             | 4       | task slots (threads) per worker                               |
| backoff_base_seconds    | 2       | retry wait is full jitter over min(cap, base * 2**attempts)   |
| backoff_cap_seconds     | 3600    |                                                               |
| stall_seconds           | 600     | a handler silent this long (no progress, checkpoint or cancel |
|                         |         | check) is given up as hung; its attempt fails as `stalled`    |
| prefetch                | 16      | extra tasks a claim may take while tasks run in milliseconds  |
| prefetch_below_seconds  | 0.05    | mean handler time under which prefetching is on               |
| max_tasks_per_process   | 0       | after this many tasks the worker stops to be replaced (0: no) |
| max_rss_mb              | 0       | past this resident memory after a task, likewise (0: no)      |

With these defaults a SIGKILLed worker's task is running again within
lease (20 s) + reaper interval (at most 15 s) = 35 s, under the 45 s promise.

How many attempts a task gets is not a worker setting: it is fixed in the task's row when it is
submitted, so every worker judges a task by the same limit whatever its own configuration. The
submitting store resolves it, first match wins: the `TaskSpec`'s `max_attempts`, then the kind's
(`Registry.register(..., max_attempts=)`, known to a store opened with `registry=`), then the
store's `default_max_attempts` (`open_store(..., default_max_attempts=)`), then 4.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QueueConfig:
    lease_seconds: float = 20.0
    heartbeat_seconds: float = 5.0
    reaper_seconds: float = 10.0
    poll_seconds: float = 1.0
    shutdown_grace_seconds: float = 10.0
    concurrency: int = 4
    backoff_base_seconds: float = 2.0
    backoff_cap_seconds: float = 3600.0
    stall_seconds: float = 600.0
    prefetch: int = 16
    prefetch_below_seconds: float = 0.05
    max_tasks_per_process: int = 0
    max_rss_mb: int = 0

    def __post_init__(self) -> None:
        if self.heartbeat_seconds * 2 > self.lease_seconds:
            raise ValueError("heartbeat_seconds must be at most half of lease_seconds")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.prefetch < 0:
            raise ValueError("prefetch must be at least 0")
