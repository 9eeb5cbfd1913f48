"""Engines by name: the built-in ones listed here, third-party ones found through entry points.

Each name has one shared instance per process, built on first use (a missing optional package
only matters when its engine is used). A third-party package adds an engine by declaring an
entry point in the ``ocrqueue.engines`` group whose object is an engine class or factory (called
with no arguments) or an ``EngineSpec`` (to declare capabilities without building the engine);
docs/documents.md has a minimal package. An entry point that fails to load is logged, naming its
package, and skipped. ``register_engine`` adds or replaces an engine in code (the service's `vlm`,
tests); ``unregister_engine`` or the ``registered_engine`` context manager undoes it, bringing back
what the name meant before.
"""

from __future__ import annotations

import importlib.metadata
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from ocrqueue.documents.engines.base import EngineCapabilities, OcrEngine, OrientationDetector
from ocrqueue.documents.errors import DocumentError, InvalidOptionsError, UnknownEngineError

ENTRY_POINT_GROUP = "ocrqueue.engines"

log = logging.getLogger("ocrqueue.engines")


@dataclass(frozen=True, eq=False)
class EngineSpec:
    """How to build an engine and, when that is cheaper than building it, how to learn its
    capabilities (None from ``capabilities``: not usable here, e.g. its package is missing).
    Without ``capabilities`` they are read from the built engine. Each spec is its own (compared
    by identity): it keys the one instance built from it, even when two names share a factory."""

    build: Callable[[], OcrEngine]
    capabilities: Callable[[], EngineCapabilities | None] | None = None
    package: str | None = None  # the distribution that provided it, for third-party engines


def _tesseract() -> OcrEngine:
    from ocrqueue.documents.engines.tesseract import TesseractEngine

    return TesseractEngine()


def _rapidocr() -> OcrEngine:
    from ocrqueue.documents.engines.rapid import RapidOcrEngine

    return RapidOcrEngine()


def _rapidocr_capabilities() -> EngineCapabilities | None:
    from ocrqueue.documents.engines.rapid import shipped_capabilities

    return shipped_capabilities()


# Built-in engines, in the order capability searches try them (the first look's orientation detector
# is the first here that detects orientation). The `vlm` engine needs a model server's address, so the
# service registers it (service/engines.py).
BUILTIN_ENGINES: dict[str, EngineSpec] = {
    "tesseract": EngineSpec(_tesseract),
    "rapidocr": EngineSpec(_rapidocr, _rapidocr_capabilities),
}


def entry_point_engines() -> Iterable[importlib.metadata.EntryPoint]:
    return importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)


class EngineRegistry:
    def __init__(
        self,
        builtins: dict[str, EngineSpec],
        discover: Callable[[], Iterable[importlib.metadata.EntryPoint]] = entry_point_engines,
    ) -> None:
        self._builtins = dict(builtins)
        self._discover = discover
        self._plugins: dict[str, EngineSpec] | None = None
        self._registered: dict[str, EngineSpec] = {}
        self._instances: dict[EngineSpec, OcrEngine] = {}
        self._lock = threading.RLock()

    def register(
        self,
        name: str,
        factory: Callable[[], OcrEngine],
        capabilities: Callable[[], EngineCapabilities | None] | None = None,
    ) -> None:
        """Make an engine available under ``name`` (replacing what the name meant); the factory
        runs once, on first use."""
        with self._lock:
            self._drop(self._registered.get(name))
            self._registered[name] = EngineSpec(factory, capabilities)

    def unregister(self, name: str) -> None:
        """Undo ``register``: the name means again what it meant before (a built-in or a
        third-party engine, with the instance it had), or nothing."""
        with self._lock:
            self._drop(self._registered.pop(name, None))

    @contextmanager
    def registered(
        self,
        name: str,
        factory: Callable[[], OcrEngine],
        capabilities: Callable[[], EngineCapabilities | None] | None = None,
    ) -> Iterator[None]:
        """``register`` for the duration of a block; what ``name`` meant before comes back after it."""
        with self._lock:
            before = self._registered.pop(name, None)
            self._registered[name] = EngineSpec(factory, capabilities)
        try:
            yield
        finally:
            with self._lock:
                self._drop(self._registered.pop(name, None))
                if before is not None:
                    self._registered[name] = before

    def names(self) -> list[str]:
        """Every engine name, in the order capability searches try them: built-ins, third-party, registered."""
        with self._lock:
            return list(dict.fromkeys([*self._builtins, *self._load_plugins(), *self._registered]))

    def get(self, name: str) -> OcrEngine:
        """The process-wide instance of engine ``name`` (created on first use)."""
        with self._lock:
            spec = self._spec(name)
            engine = self._instances.get(spec)
            if engine is None:
                engine = self._instances[spec] = self._build(name, spec)
            return engine

    def capabilities(self, name: str) -> EngineCapabilities | None:
        """What engine ``name`` can do, or None when it cannot be used here (its package or its
        data is missing); an unknown name is an UnknownEngineError."""
        with self._lock:
            spec = self._spec(name)
            if spec.capabilities is not None and spec not in self._instances:
                return spec.capabilities()
            try:
                return self.get(name).capabilities
            except InvalidOptionsError:
                return None

    def first_with(self, wanted: Callable[[EngineCapabilities], bool], prefer: str | None = None) -> str | None:
        """The name of the engine that can do ``wanted``: ``prefer`` if it can, else the first
        that can in ``names()`` order; None when none can."""
        candidates = self.names()
        if prefer is not None:
            candidates = [prefer, *(name for name in candidates if name != prefer)]
        for name in candidates:
            found = self.capabilities(name)
            if found is not None and wanted(found):
                return name
        return None

    def orientation_detector(self, name: str) -> OrientationDetector:
        engine = self.get(name)
        if not isinstance(engine, OrientationDetector):
            raise InvalidOptionsError(f"OCR engine {name!r} declares orientation detection but has no orientation()")
        return engine

    def _drop(self, spec: EngineSpec | None) -> None:
        if spec is not None:
            self._instances.pop(spec, None)

    def _spec(self, name: str) -> EngineSpec:
        spec = self._registered.get(name) or self._builtins.get(name) or self._load_plugins().get(name)
        if spec is None:
            raise UnknownEngineError(f"unknown OCR engine {name!r}; available: {', '.join(sorted(self.names()))}")
        return spec

    def _build(self, name: str, spec: EngineSpec) -> OcrEngine:
        if spec.package is None:
            return spec.build()
        try:
            engine = spec.build()
            if not isinstance(engine.capabilities, EngineCapabilities):
                raise TypeError("its capabilities are not an EngineCapabilities")
        except DocumentError:
            raise
        except Exception as exc:
            log.warning("OCR engine %r from package %s failed to start: %r", name, spec.package, exc)
            raise InvalidOptionsError(f"OCR engine {name!r} (package {spec.package}) failed to start: {exc}") from exc
        return engine

    def _load_plugins(self) -> dict[str, EngineSpec]:
        """Third-party engines, loaded once; one that fails is logged with its package and skipped."""
        if self._plugins is None:
            self._plugins = {}
            for point in self._discover():
                package = point.dist.name if point.dist is not None else f"providing {point.value}"
                spec = self._plugin_spec(point, package)
                if spec is None:
                    continue
                if point.name in self._builtins or point.name in self._plugins:
                    log.warning("OCR engine %r from package %s skipped: the name is taken", point.name, package)
                    continue
                self._plugins[point.name] = spec
        return self._plugins

    def _plugin_spec(self, point: importlib.metadata.EntryPoint, package: str) -> EngineSpec | None:
        try:
            found = point.load()
        except Exception as exc:
            log.warning("OCR engine %r from package %s could not be loaded, skipped: %r", point.name, package, exc)
            return None
        if isinstance(found, EngineSpec):
            return replace(found, package=package)
        if callable(found):
            return EngineSpec(found, package=package)
        log.warning("OCR engine %r from package %s skipped: %r is not an engine factory", point.name, package, found)
        return None


REGISTRY = EngineRegistry(BUILTIN_ENGINES)

register_engine = REGISTRY.register
unregister_engine = REGISTRY.unregister
registered_engine = REGISTRY.registered
get_engine = REGISTRY.get
engine_capabilities = REGISTRY.capabilities
first_engine_with = REGISTRY.first_with
orientation_detector = REGISTRY.orientation_detector


def available_engines() -> list[str]:
    return sorted(REGISTRY.names())
