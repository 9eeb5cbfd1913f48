"""Following tasks live: one watcher per process reads a followed task only when the store says it
changed, and hands the new row to everyone following it.

The store tells of changes on its listening thread: PostgreSQL names the tasks (NOTIFY from a
trigger), SQLite only says that something was committed (`PRAGMA data_version`). A followed task is
read once per change for all its followers, in one statement with every other task that changed,
and once every `recheck_seconds` in case a notice was lost. Nothing reads the database on a timer
while nothing changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ocrqueue.queue import Store, Task

log = logging.getLogger(__name__)

RECHECK_SECONDS = 20.0
"""A followed task is read this often even without a change notice (one lost on a reconnection)."""
FOLLOW_SECONDS = 3 * RECHECK_SECONDS
"""How long a registration asks for notices; renewed every recheck, so a crashed process's expire."""
LIST_MIN_GAP_SECONDS = 0.25
"""A followed task list is read again at most this often, however many tasks change meanwhile."""

Update = Task | None | Exception
"""What a follower is handed: the task's new row, None once it is deleted, or the error a read raised."""
Deliver = Callable[[str, Update], None]


@dataclass(eq=False)
class _Following:
    task_ids: frozenset[str]
    deliver: Deliver
    seen: dict[str, Task | None] = field(default_factory=dict)


class TaskFollower:
    """The per-process watcher. Deliveries run on its thread: they must return at once."""

    def __init__(self, store: Store, *, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self.store = store
        self._recheck_seconds = recheck_seconds
        self._id = uuid.uuid4().hex
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._followings: set[_Following] = set()
        self._watchers: set[Callable[[], None]] = set()
        self._dirty: set[str] = set()
        self._everything = False
        self._any_change = False
        self._registered: set[str] = set()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- following ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def following(self, task_ids: Iterable[str], deliver: Deliver, known: Iterable[Task] = ()) -> Iterator[None]:
        """Call `deliver(task_id, update)` with each task's current row at once (unless it is still
        the row in `known`), then on every change."""
        entry = _Following(frozenset(task_ids), deliver, {task.id: task for task in known})

        def follow() -> None:
            self._followings.add(entry)
            self._dirty |= entry.task_ids

        with self._looked_at(follow, lambda: self._followings.discard(entry)):
            yield

    @contextlib.contextmanager
    def watching(self, notify: Callable[[], None]) -> Iterator[None]:
        """Call `notify()` after any change notice (and every `recheck_seconds`): for task lists.

        On PostgreSQL an update is noticed only for followed tasks: follow the tasks shown too."""
        with self._looked_at(lambda: self._watchers.add(notify), lambda: self._watchers.discard(notify)):
            yield

    @contextlib.contextmanager
    def _looked_at(self, add: Callable[[], None], remove: Callable[[], None]) -> Iterator[None]:
        """``add()`` under the lock, the thread started and woken to look at once; ``remove()``
        under the lock at the end."""
        with self._lock:
            add()
        self._start()
        self._wake.set()
        try:
            yield
        finally:
            with self._lock:
                remove()

    def close(self) -> None:
        self._closed = True
        self.store.remove_change_listener(self._changed)
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._registered:
            try:
                self.store.unfollow(self._id, sorted(self._registered))
            except Exception as exc:  # they expire on their own
                log.warning("could not unregister %d followed task(s): %s", len(self._registered), exc)

    # -- the watcher thread ---------------------------------------------------------------------
    def _start(self) -> None:
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._thread = threading.Thread(target=self._run, name="ocrqueue-follow", daemon=True)
        self.store.add_change_listener(self._changed)
        self.store.start_listening()
        self._thread.start()

    def _changed(self, task_ids: frozenset[str] | None) -> None:
        with self._lock:
            self._any_change = True
            if task_ids is None:
                self._everything = True
            else:
                self._dirty |= task_ids
        self._wake.set()

    def _run(self) -> None:
        next_recheck = time.monotonic() + self._recheck_seconds
        while not self._closed:
            with self._lock:
                idle = not self._followings and not self._watchers
            if idle:
                self._wake.wait()
                next_recheck = time.monotonic() + self._recheck_seconds
            else:
                self._wake.wait(max(0.0, next_recheck - time.monotonic()))
            if self._closed:
                return
            self._wake.clear()
            recheck = time.monotonic() >= next_recheck
            if recheck:
                next_recheck = time.monotonic() + self._recheck_seconds
            with self._lock:
                everything = self._everything or recheck
                any_change = self._any_change or recheck
                dirty, self._dirty = self._dirty, set()
                self._everything = self._any_change = False
                followings = list(self._followings)
                watchers = list(self._watchers)
            followed = {task_id for entry in followings for task_id in entry.task_ids}
            try:
                self._register(followed, renew=recheck)
                if any_change:
                    for notify in watchers:
                        notify()
                wanted = followed if everything else followed & dirty
                if wanted:
                    self._read(wanted, followings)
            except Exception:  # a follower's callback failed: the others must still hear of changes
                log.exception("delivering task changes failed")

    def _register(self, followed: set[str], *, renew: bool) -> None:
        """Ask the store for notices of what is followed, before reading it (nothing is missed in
        between), renewing every recheck; a failure is retried at the next wake-up."""
        new, gone = followed - self._registered, self._registered - followed
        try:
            if renew and followed:
                self.store.follow(self._id, sorted(followed), FOLLOW_SECONDS)
            elif new:
                self.store.follow(self._id, sorted(new), FOLLOW_SECONDS)
            if gone:
                self.store.unfollow(self._id, sorted(gone))
        except Exception as exc:
            log.warning("registering %d followed task(s) failed: %s", len(followed), exc)
            return
        self._registered = followed

    def _read(self, task_ids: set[str], followings: list[_Following]) -> None:
        try:
            found: dict[str, Task] = {task.id: task for task in self.store.get_many(sorted(task_ids))}
        except Exception as exc:  # each follower fails as its own read would have
            log.warning("reading %d followed task(s) failed: %s", len(task_ids), exc)
            for entry in followings:
                for task_id in entry.task_ids & task_ids:
                    entry.deliver(task_id, exc)
            return
        for entry in followings:
            for task_id in entry.task_ids & task_ids:
                current = found.get(task_id)
                if task_id in entry.seen and entry.seen[task_id] == current:
                    continue
                entry.seen[task_id] = current
                entry.deliver(task_id, current)


# -- asyncio adapters (the API's event streams) ---------------------------------------------------
class Signal(enum.Enum):
    QUIET = "quiet"
    """Nothing changed for a keep-alive interval."""
    DELETED = "deleted"
    """The followed task was deleted; nothing follows."""


async def task_updates(follower: TaskFollower, task: Task, keepalive_seconds: float) -> AsyncIterator[Task | Signal]:
    """The task's row each time it changed since `task`, until a terminal row or its deletion;
    QUIET after each `keepalive_seconds` without a change. A failed read raises its error."""
    loop = asyncio.get_running_loop()
    latest: asyncio.Queue[Update] = asyncio.Queue(maxsize=1)

    def put_latest(update: Update) -> None:
        if latest.full():  # a stream that fell behind needs only the newest row
            latest.get_nowait()
        latest.put_nowait(update)

    def deliver(_task_id: str, update: Update) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop closed while the row was read
            loop.call_soon_threadsafe(put_latest, update)

    last = task
    with follower.following([task.id], deliver, known=[task]):
        while not last.status.terminal:
            try:
                update = await asyncio.wait_for(latest.get(), keepalive_seconds)
            except TimeoutError:
                yield Signal.QUIET
                continue
            if isinstance(update, Exception):
                raise update
            if update is None:
                yield Signal.DELETED
                return
            if update.updated_at != last.updated_at or update.status != last.status:
                last = update
                yield update


@dataclass(frozen=True)
class ListChange:
    """One change of a followed task list: a task appeared or changed, or one left (`deleted_id`)."""

    task: Task | None = None
    deleted_id: str | None = None


async def list_changes(
    follower: TaskFollower, store: Store, tenant: str | None, window: int, keepalive_seconds: float
) -> AsyncIterator[list[ListChange] | None]:
    """The tenant's newest `window` tasks: everything at first, then what changed after each change
    notice (read at most every LIST_MIN_GAP_SECONDS), and None after `keepalive_seconds` of quiet."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def notify() -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(changed.set)

    seen: dict[str, datetime] = {}
    last_read = 0.0
    with follower.watching(notify), contextlib.ExitStack() as shown:
        while True:
            gap = last_read + LIST_MIN_GAP_SECONDS - time.monotonic()
            if gap > 0:
                await asyncio.sleep(gap)
            changed.clear()
            last_read = time.monotonic()
            page = await asyncio.to_thread(store.list_tasks, tenant=tenant, limit=window, top_level=True)
            current = {task.id: task for task in page.tasks}
            changes = [ListChange(task=task) for task in reversed(page.tasks) if seen.get(task.id) != task.updated_at]
            for gone in [task_id for task_id in seen if task_id not in current]:
                if await asyncio.to_thread(store.get, gone) is None:
                    changes.append(ListChange(deleted_id=gone))
            if current.keys() != seen.keys():  # follow what is shown (PostgreSQL notices only those)
                shown.close()
                shown.enter_context(follower.following(current, lambda _id, _update: notify(), known=page.tasks))
            seen = {task_id: task.updated_at for task_id, task in current.items()}
            if changes:
                yield changes
            while not changed.is_set():
                try:
                    await asyncio.wait_for(changed.wait(), keepalive_seconds)
                except TimeoutError:
                    yield None


# -- blocking waits (the command line) ------------------------------------------------------------
def wait_for_tasks(
    follower: TaskFollower,
    task_ids: Iterable[str],
    timeout: float | None,
    on_update: Callable[[str, Task | None], None] = lambda _id, _task: None,
) -> dict[str, Task | None]:
    """Block until every task is finished or deleted, or `timeout` (None: no limit) passes; calls
    `on_update` on the caller's thread with each new row. Returns each task's last row (None:
    deleted or missing); one still unfinished at the timeout is not terminal there."""
    ids = list(task_ids)
    remaining = set(ids)
    latest: dict[str, Task | None] = {}
    arrived: dict[str, Update] = {}
    ready = threading.Condition()

    def deliver(task_id: str, update: Update) -> None:
        with ready:
            arrived[task_id] = update
            ready.notify()

    deadline = None if timeout is None else time.monotonic() + timeout
    with follower.following(remaining, deliver):
        while remaining:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            with ready:
                ready.wait_for(lambda: bool(arrived), timeout=left)
                batch = dict(arrived)
                arrived.clear()
            if not batch:
                break
            for task_id, update in batch.items():
                if isinstance(update, Exception):
                    raise update
                latest[task_id] = update
                on_update(task_id, update)
                if update is None or update.status.terminal:
                    remaining.discard(task_id)
    unread = [task_id for task_id in ids if task_id not in latest]  # the timeout came before the first read
    if unread:
        found = {task.id: task for task in follower.store.get_many(unread)}
        latest.update({task_id: found.get(task_id) for task_id in unread})
    return latest
