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
    """Overrides the queue default for tasks of this kind submitted without their own value."""


class Registry:
    """The kinds a process knows how to run; a worker claims only these."""

    def __init__(self) -> None:
        self._kinds: dict[str, TaskKind] = {}

    def register(self, name: str, handler: Handler, *, max_attempts: int | None = None) -> TaskKind:
        if name in self._kinds:
            raise ValueError(f"task kind {name!r} is already registered")
        kind = TaskKind(name, handler, max_attempts)
        self._kinds[name] = kind
        return kind

    def kind(self, name: str) -> Callable[[Handler], Handler]:
        """Decorator form of `register`."""

        def decorate(handler: Handler) -> Handler:
            self.register(name, handler)
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
