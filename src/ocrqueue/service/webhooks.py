"""Webhooks: when a task with a `callback_url` ends, a signed POST tells the caller.

Durable without touching the queue's own statements: submitting a task with a callback writes a
row in `ocrq_webhooks` (the task and URL, and whose secret signs it). `WebhookOutbox.sweep` looks at
due rows; once the task is terminal it submits a `webhook` task for that ending, with a dedup key
made of the task, the URL and the ending (status and finish time), so a crash between the submit
and the row's update, or two sweepers at once, still make one delivery per ending. The delivery is
an ordinary task: retried with the queue's backoff, dead-lettered after its attempts, kept across
restarts. A dead-lettered task stays watched: an operator retry gives it a new ending, and a new
webhook. Receivers get the same `webhook-id` on every retry of one message (at-least-once: a worker
killed after the receiver's 2xx but before the task completed sends it again, with the same id).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from ocrqueue.queue import PermanentError, Store, TaskContext, TaskSpec, TaskStatus, TransientError
from ocrqueue.queue.models import JSON, Task
from ocrqueue.queue.urls import parse_database_url
from ocrqueue.service.webhook_sender import WebhookFailed, WebhookRefused, check_url, post
from ocrqueue.service.webhook_signing import new_secret, signed_headers

WEBHOOK_KIND = "webhook"
LOCAL_OWNER = "local"
_RECHECK_DEAD_LETTER_SECONDS = 60.0
_RECHECK_MIN_SECONDS = 0.5
_RECHECK_MAX_SECONDS = 5.0

log = logging.getLogger("ocrqueue.webhooks")

metadata = sa.MetaData()
webhook_secrets = sa.Table(
    "ocrq_webhook_secrets",
    metadata,
    sa.Column("owner", sa.String(64), primary_key=True),
    sa.Column("secret", sa.String(100), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
webhooks = sa.Table(
    "ocrq_webhooks",
    metadata,
    sa.Column("task_id", sa.String(36), primary_key=True),
    sa.Column("url_hash", sa.String(64), primary_key=True),
    sa.Column("url", sa.String(2000), nullable=False),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("check_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("watching", sa.Boolean(), nullable=False),
    sa.Column("last_ending", sa.String(100)),
    sa.Column("last_delivery", sa.String(36)),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


def key_owner(token: str) -> str:
    """Who a secret belongs to, for an API key's token: what the API knows its caller by."""
    return hashlib.sha256(token.strip().encode()).hexdigest()[:24]


def _url_hash(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()


def _at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


@dataclass(frozen=True)
class Watch:
    task_id: str
    url_hash: str
    url: str
    owner: str
    last_ending: str | None
    last_delivery: str | None


class WebhookStore:
    """The secrets and the watched callbacks, in the service's tables."""

    def __init__(self, database_url: str) -> None:
        url = parse_database_url(database_url)
        self._engine = sa.create_engine(url.sqlalchemy, pool_pre_ping=True)

    def close(self) -> None:
        self._engine.dispose()

    @staticmethod
    def create_secret_in(connection: sa.Connection, owner: str) -> str:
        """A new secret for `owner`, inserted in the caller's transaction (an API key's creation)."""
        secret = new_secret()
        connection.execute(webhook_secrets.insert().values(owner=owner, secret=secret, created_at=datetime.now(UTC)))
        return secret

    def create_secret(self, owner: str) -> str:
        with self._engine.begin() as conn:
            return self.create_secret_in(conn, owner)

    def secret_for(self, owner: str) -> str | None:
        query = sa.select(webhook_secrets.c.secret).where(webhook_secrets.c.owner == owner)
        with self._engine.connect() as conn:
            found: str | None = conn.execute(query).scalar_one_or_none()
        return found

    def local_secret(self) -> str:
        """The secret of local mode (no API keys), made the first time it is asked for."""
        existing = self.secret_for(LOCAL_OWNER)
        if existing is not None:
            return existing
        try:
            return self.create_secret(LOCAL_OWNER)
        except sa.exc.IntegrityError:  # made at the same moment by another process
            made = self.secret_for(LOCAL_OWNER)
            assert made is not None
            return made

    def watch(self, task_id: str, url: str, owner: str, now: float) -> None:
        """Remember that `task_id` must call `url` when it ends; a second ask for the same URL is a no-op."""
        row = {
            "task_id": task_id,
            "url_hash": _url_hash(url),
            "url": url,
            "owner": owner,
            "check_at": _at(now),
            "watching": True,
            "created_at": _at(now),
        }
        key = (webhooks.c.task_id == task_id) & (webhooks.c.url_hash == row["url_hash"])
        with self._engine.begin() as conn:
            if conn.execute(sa.select(webhooks.c.task_id).where(key)).first() is None:
                try:
                    with conn.begin_nested():
                        conn.execute(webhooks.insert().values(**row))
                except sa.exc.IntegrityError:
                    return  # the same callback, registered by a concurrent submit of the same task

    def due(self, now: float, limit: int) -> list[Watch]:
        query = (
            sa.select(webhooks)
            .where(webhooks.c.watching.is_(True), webhooks.c.check_at <= _at(now))
            .order_by(webhooks.c.check_at)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [
                Watch(r.task_id, r.url_hash, r.url, r.owner, r.last_ending, r.last_delivery)
                for r in conn.execute(query)
            ]

    def update(self, watch: Watch, check_at: float, **values: Any) -> None:
        key = (webhooks.c.task_id == watch.task_id) & (webhooks.c.url_hash == watch.url_hash)
        with self._engine.begin() as conn:
            conn.execute(webhooks.update().where(key).values(check_at=_at(check_at), **values))

    def forget(self, task_id: str) -> None:
        with self._engine.begin() as conn:
            conn.execute(webhooks.delete().where(webhooks.c.task_id == task_id))

    def for_task(self, task_id: str) -> list[Watch]:
        query = sa.select(webhooks).where(webhooks.c.task_id == task_id).order_by(webhooks.c.created_at)
        with self._engine.connect() as conn:
            return [
                Watch(r.task_id, r.url_hash, r.url, r.owner, r.last_ending, r.last_delivery)
                for r in conn.execute(query)
            ]


def watch_callback(store: Store, hooks: WebhookStore, task_id: str, url: str, owner: str) -> None:
    """After a submit with `callback_url`: call `url` when the task ends (at once if it already has,
    e.g. a dedup hit on a finished task). Raises WebhookRefused for a URL that can never be called."""
    check_url(url)
    hooks.watch(task_id, url, owner, store.now())


def _ending(task: Task) -> str:
    finished = task.finished_at or task.updated_at
    return f"{task.status}:{finished.timestamp():.6f}"


def webhook_body(task: Task, public_url: str | None) -> dict[str, Any]:
    base = (public_url or "").rstrip("/") + f"/api/v1/tasks/{task.id}"
    result: dict[str, str] | None = None
    if task.status is TaskStatus.COMPLETED:
        result = {"task": base}
        if task.kind == "ocr":
            result |= {fmt: f"{base}/result?format={fmt}" for fmt in ("markdown", "json", "pdf")}
    error = None
    if task.status is not TaskStatus.COMPLETED:
        error = {"kind": task.error_kind, "message": task.error_message}
    finished = task.finished_at or task.updated_at
    return {
        "type": f"task.{task.status}",
        "timestamp": finished.isoformat(),
        "data": {
            "task_id": task.id,
            "kind": task.kind,
            "status": str(task.status),
            "attempts": task.attempts,
            "result": result,
            "error": error,
        },
    }


class WebhookOutbox:
    """Turns ended tasks with callbacks into `webhook` tasks; any number may run (see module doc)."""

    def __init__(
        self, store: Store, hooks: WebhookStore, max_attempts: int, public_url: str | None, interval: float
    ) -> None:
        self.store = store
        self.hooks = hooks
        self.max_attempts = max_attempts
        self.public_url = public_url
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sweep(self, limit: int = 200) -> int:
        """One pass over due callbacks; the number of deliveries submitted."""
        now = self.store.now()
        due = self.hooks.due(now, limit)
        if not due:
            return 0
        tasks = {task.id: task for task in self.store.get_many(sorted({w.task_id for w in due}))}
        submitted = 0
        for watch in due:
            task = tasks.get(watch.task_id)
            if task is None:
                self.hooks.forget(watch.task_id)
            elif not task.status.terminal:
                age = max(0.0, now - task.created_at.timestamp())
                wait = min(_RECHECK_MAX_SECONDS, max(_RECHECK_MIN_SECONDS, age / 10))
                self.hooks.update(watch, now + wait)
            else:
                ending = _ending(task)
                delivery = watch.last_delivery
                if ending != watch.last_ending:
                    delivery = self._submit(task, watch, ending)
                    submitted += 1
                still = task.status is TaskStatus.DEAD_LETTER
                self.hooks.update(
                    watch,
                    now + _RECHECK_DEAD_LETTER_SECONDS,
                    watching=still,
                    last_ending=ending,
                    last_delivery=delivery,
                )
        return submitted

    def _submit(self, task: Task, watch: Watch, ending: str) -> str:
        dedup = f"webhook:{task.id}:{watch.url_hash[:16]}:{ending}"
        message_id = "msg_" + hashlib.sha256(dedup.encode()).hexdigest()[:32]
        payload = {
            "task_id": task.id,
            "url": watch.url,
            "owner": watch.owner,
            "message_id": message_id,
            "body": webhook_body(task, self.public_url),
        }
        spec = TaskSpec(WEBHOOK_KIND, payload, max_attempts=self.max_attempts, dedup_key=dedup, tenant=task.tenant)
        return self.store.submit(spec).task.id

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ocrqueue-webhook-outbox", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                while self.sweep() and not self._stop.is_set():
                    pass
            except Exception:  # the database may be restarting: the next pass tries again
                log.exception("webhook sweep failed; retrying in %.1fs", self.interval)
            self._stop.wait(self.interval)


@dataclass(frozen=True)
class WebhookConfig:
    """What delivering webhooks needs, from the settings (see docs/configuration.md, webhook_*)."""

    database_url: str
    timeout_seconds: float = 10.0
    allow_private_networks: bool = False
    max_attempts: int = 10
    public_url: str | None = None
    sweep_seconds: float = 1.0

    def handler(self) -> WebhookTask:
        return WebhookTask(WebhookStore(self.database_url), self.timeout_seconds, self.allow_private_networks)

    def outbox(self, store: Store) -> WebhookOutbox:
        hooks = WebhookStore(self.database_url)
        return WebhookOutbox(store, hooks, self.max_attempts, self.public_url, self.sweep_seconds)


class WebhookTask:
    """Handler for tasks of kind `webhook`: one signed POST per attempt."""

    def __init__(self, hooks: WebhookStore, timeout: float, allow_private: bool) -> None:
        self.hooks = hooks
        self.timeout = timeout
        self.allow_private = allow_private

    def __call__(self, ctx: TaskContext) -> JSON:
        payload: dict[str, Any] = ctx.payload
        owner = payload["owner"]
        secret = self.hooks.local_secret() if owner == LOCAL_OWNER else self.hooks.secret_for(owner)
        if secret is None:
            raise PermanentError("the API key that asked for this callback has no webhook secret any more")
        body = json.dumps(payload["body"], separators=(",", ":")).encode()
        headers = signed_headers(secret, payload["message_id"], int(time.time()), body)
        ctx.raise_if_cancelled()
        try:
            delivered = post(payload["url"], body, headers, self.timeout, self.allow_private)
        except WebhookRefused as exc:
            raise PermanentError(str(exc)) from exc
        except WebhookFailed as exc:
            raise TransientError(str(exc)) from exc
        return {"status_code": delivered.status_code, "response": delivered.response_excerpt}
