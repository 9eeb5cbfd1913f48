"""Task kinds: a name, the handler that runs it, and its retry defaults."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ocrqueue.queue.models import JSON

if TYPE_CHECKING:
    from ocrqueue.queue.context import TaskContext

Handler = Callable[["TaskContext"], JSON]


@dataclass(frozen=True)
class TaskKind:
    name: str
    handler: Handler
    max_attempts: int | None = None
    """Attempts for tasks of this kind submitted without their own value; overrides the store's
    default. Applied at submit by a store that knows the registry (`open_store(..., registry=)`)."""


class Registry:
    """The kinds a process knows how to run; a worker claims only these."""

    def __init__(self) -> None:
        self._kinds: dict[str, TaskKind] = {}

    def register(self, name: str, handler: Handler, *, max_attempts: int | None = None) -> TaskKind:
        if name in self._kinds:
            raise ValueError(f"task kind {name!r} is already registered")
        if max_attempts is not None and max_attempts < 1:
            raise ValueError(f"task kind {name!r}: max_attempts must be at least 1")
        kind = TaskKind(name, handler, max_attempts)
        self._kinds[name] = kind
        return kind

    def kind(self, name: str, *, max_attempts: int | None = None) -> Callable[[Handler], Handler]:
        """Decorator form of `register`."""

        def decorate(handler: Handler) -> Handler:
            self.register(name, handler, max_attempts=max_attempts)
            return handler

        return decorate

    def __getitem__(self, name: str) -> TaskKind:
        return self._kinds[name]

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds))

    def names(self) -> list[str]:
        return sorted(self._kinds)

    def attempt_limits(self) -> dict[str, int]:
        """The kinds that set their own attempt limit, with it."""
        return {name: kind.max_attempts for name, kind in self._kinds.items() if kind.max_attempts is not None}
