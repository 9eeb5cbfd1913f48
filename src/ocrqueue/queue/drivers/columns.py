"""Column lists shared by both backends' SQL, so a row always maps to `Task` the same way."""

from __future__ import annotations

TASK_COLUMN_NAMES = (
    "id", "kind", "status", "priority", "payload", "tenant", "dedup_key", "attempts", "max_attempts",
    "lease_token", "worker_id", "lease_expires_at", "cancel_requested", "progress_done",
    "progress_total", "progress_step", "result", "error_kind", "error_message", "run_at",
    "created_at", "started_at", "finished_at", "updated_at", "parent_id", "children",
)  # fmt: skip


def task_columns(prefix: str = "") -> str:
    return ", ".join(f"{prefix}{name}" for name in TASK_COLUMN_NAMES)
