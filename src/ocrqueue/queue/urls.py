"""Database URLs as users paste them, turned into what each layer needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True)
class DatabaseURL:
    backend: str
    """"sqlite" or "postgresql"."""
    raw: str
    sqlite_path: Path | None = None

    @property
    def libpq(self) -> str:
        """A URL psycopg accepts (no SQLAlchemy driver suffix)."""
        parts = urlsplit(self.raw)
        return urlunsplit(("postgresql", *parts[1:]))

    @property
    def sqlalchemy(self) -> str:
        """A URL SQLAlchemy maps to the drivers we install (psycopg 3, stdlib sqlite3)."""
        if self.backend == "sqlite":
            return f"sqlite:///{self.sqlite_path}"
        parts = urlsplit(self.raw)
        return urlunsplit(("postgresql+psycopg", *parts[1:]))


def parse_database_url(url: str) -> DatabaseURL:
    """Accept `postgresql://`, `postgres://`, `postgresql+psycopg://` and `sqlite:///path` URLs."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("postgresql", "postgres") or scheme.startswith("postgresql+"):
        return DatabaseURL(backend="postgresql", raw=url)
    if scheme == "sqlite" or scheme.startswith("sqlite+"):
        rest = url.split("://", 1)[1]
        if not rest.startswith("/") or rest in ("/", "/:memory:"):
            raise ValueError(
                "SQLite needs a file path (sqlite:///relative/path.db or sqlite:////absolute/path.db); "
                "an in-memory database cannot be shared between workers"
            )
        path = Path(rest[1:]).expanduser().resolve()
        return DatabaseURL(backend="sqlite", raw=url, sqlite_path=path)
    raise ValueError(f"unsupported database URL scheme {scheme!r}: use postgresql:// or sqlite:///")
