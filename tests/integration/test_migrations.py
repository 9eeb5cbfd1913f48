"""Schema migrations on both backends, for every schema (the queue's and the service's).

The tests walk each schema's revision chain as Alembic reports it, so a new revision is covered
the day it is added: every upgrade step must keep the rows that were there (seeded through the
real code at head, then taken back to the older revision by its own downgrade), and every
downgrade step must run, down to no tables at all, after which an upgrade gives the fresh schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from support.postgres import fresh_database

from ocrqueue.documents.vlm import BreakerState, BreakerStatus
from ocrqueue.queue import TaskSpec, TaskStatus, open_store
from ocrqueue.queue.migrate import (
    QUEUE_SCHEMA,
    Schema,
    current_revision,
    downgrade,
    head_revision,
    revisions,
    upgrade,
)
from ocrqueue.queue.urls import parse_database_url
from ocrqueue.service.apikeys import ApiKeys
from ocrqueue.service.breaker_reports import BreakerReports
from ocrqueue.service.schema import SERVICE_SCHEMA

BACKENDS = ["sqlite", "postgresql"]
Snapshot = dict[str, dict[tuple[Any, ...], dict[str, Any]]]


# -- data each schema is seeded with, through the code that uses it -------------------------------


def seed_queue(url: str) -> Callable[[], None]:
    """A task in every status (and a retried one, and one running with a cancel request), with
    events, checkpoints, progress and a worker row; returns a check that the code at head reads
    them back and can still work on them."""
    with open_store(url) as store:
        store.register_worker("w1", "host-a", 4242, 2, ["noop"])
        later = TaskSpec("noop", {"doc": "é"}, priority=2, tenant="acme", dedup_key="k1", delay_seconds=3600)
        pending = store.submit(later).task.id
        cancelled = store.submit(TaskSpec("noop")).task.id
        store.cancel(cancelled)
        store.submit_many([TaskSpec("noop", max_attempts=3) for _ in range(5)])
        leases = [c.lease for c in store.claim("w1", 10, 600)]
        assert len(leases) == 5
        store.checkpoint(leases[0], 0, {"page": 1, "text": "kept"})
        store.progress(leases[0], 1, 3, "page 1 of 3")
        store.complete(leases[0], {"pages": 3})
        store.fail(leases[1], error_kind="permanent", message="encrypted", retryable=False, delay_seconds=0)
        store.fail(leases[2], error_kind="transient", message="timeout", retryable=True, delay_seconds=600)
        store.checkpoint(leases[3], 0, {"page": 1})
        store.cancel(leases[4].task_id)
        expected = {
            pending: TaskStatus.PENDING,
            cancelled: TaskStatus.CANCELLED,
            leases[0].task_id: TaskStatus.COMPLETED,
            leases[1].task_id: TaskStatus.DEAD_LETTER,
            leases[2].task_id: TaskStatus.PENDING,
            leases[3].task_id: TaskStatus.RUNNING,
            leases[4].task_id: TaskStatus.RUNNING,
        }
        history = {task_id: [e.type for e in store.events(task_id)] for task_id in expected}
        statuses = store.counts_by_status()

    def check() -> None:
        with open_store(url) as store:
            assert {t.id: t.status for t in store.get_many(list(expected))} == expected
            assert {task_id: [e.type for e in store.events(task_id)] for task_id in expected} == history
            assert store.counts_by_status() == statuses
            assert [c.data for c in store.checkpoints(leases[0].task_id)] == [{"page": 1, "text": "kept"}]
            assert store.get(leases[4].task_id).cancel_requested  # type: ignore[union-attr]
            assert store.complete(leases[3], "done").status is TaskStatus.COMPLETED
            assert store.submit(TaskSpec("noop", dedup_key="k1")).task.id == pending
            assert [w.id for w in store.workers()] == ["w1"]

    return check


def seed_service(url: str) -> Callable[[], None]:
    keys = ApiKeys(url)
    breakers = BreakerReports(url)
    try:
        kept, token = keys.create("acme", "ci")
        revoked, _ = keys.create("globex", "old")
        keys.revoke(revoked.id)
        listed = {k.id: k for k in keys.list()}
        # kept by the upgrades from s0003 on (a downgrade below it drops the table, and with it this row)
        breakers.put("http://gpu/v1", "worker w1", BreakerStatus(BreakerState.OPEN, 5, 30.0, "unreachable", 1), 1e9)
    finally:
        keys.close()
        breakers.close()

    def check() -> None:
        keys = ApiKeys(url)
        try:
            assert {k.id: k for k in keys.list()} == listed
            assert keys.tenant_for(token) == kept.tenant
        finally:
            keys.close()

    return check


@dataclass(frozen=True)
class Case:
    schema: Schema
    seed: Callable[[str], Callable[[], None]]

    def __str__(self) -> str:
        return self.schema.version_table


SCHEMAS = [Case(QUEUE_SCHEMA, seed_queue), Case(SERVICE_SCHEMA, seed_service)]


# -- fixtures and helpers ---------------------------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with fresh_database(request.getfixturevalue("pg_admin_url")) as url:
        yield url


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(parse_database_url(url).sqlalchemy, poolclass=sa.pool.NullPool)


def schema_tables(url: str, schema: Schema) -> set[str]:
    engine = _engine(url)
    try:
        return set(sa.inspect(engine).get_table_names()) - {schema.version_table}
    finally:
        engine.dispose()


def snapshot(url: str, tables: set[str]) -> Snapshot:
    """Every row of `tables`, by primary key."""
    engine = _engine(url)
    rows: Snapshot = {}
    try:
        with engine.connect() as conn:
            for name in tables:
                table = sa.Table(name, sa.MetaData(), autoload_with=conn)
                key = [c.name for c in table.primary_key.columns]
                rows[name] = {tuple(row[k] for k in key): dict(row) for row in conn.execute(table.select()).mappings()}
    finally:
        engine.dispose()
    return rows


def assert_kept(before: Snapshot, after: Snapshot, step: str) -> None:
    """Every row before the step is still there with the same value in every column it had."""
    for table, rows in before.items():
        assert table in after, f"{step} dropped table {table}"
        assert rows.keys() <= after[table].keys(), f"{step} lost rows of {table}"
        for key, row in rows.items():
            kept = {column: after[table][key].get(column) for column in row}
            assert kept == row, f"{step} changed {table} row {key}"


def schema_shape(url: str, tables: set[str]) -> dict[str, Any]:
    """Tables, columns (name, type, nullability), indexes and unique constraints, comparable."""
    engine = _engine(url)
    try:
        inspector = sa.inspect(engine)
        return {
            name: (
                [(c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns(name)],
                sorted((i["name"], tuple(i["column_names"]), i["unique"]) for i in inspector.get_indexes(name)),
                sorted(str(u["column_names"]) for u in inspector.get_unique_constraints(name)),
            )
            for name in sorted(tables)
        }
    finally:
        engine.dispose()


def chain_cases() -> list[Any]:
    """(schema, revision) for every revision of every schema: where an upgrade with data starts."""
    return [pytest.param(case, rev, id=f"{case}-{rev}") for case in SCHEMAS for rev in revisions(case.schema)]


# -- the tests ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", SCHEMAS, ids=str)
def test_upgrade_from_an_empty_database_gives_a_working_schema(empty_url: str, case: Case) -> None:
    assert current_revision(empty_url, case.schema) is None
    assert upgrade(empty_url, case.schema) == head_revision(case.schema)
    assert current_revision(empty_url, case.schema) == head_revision(case.schema)
    check = case.seed(empty_url)
    check()


@pytest.mark.parametrize(("case", "start"), chain_cases())
def test_every_upgrade_step_from_a_revision_with_data_keeps_it(empty_url: str, case: Case, start: str) -> None:
    """From `start` (data in it) to head one revision at a time; at head (`start` the newest) this is
    the upgrade every process start runs on a database in use, which must change nothing."""
    upgrade(empty_url, case.schema)
    tables = schema_tables(empty_url, case.schema)
    check = case.seed(empty_url)
    downgrade(empty_url, case.schema, start)
    chain = revisions(case.schema)
    before = snapshot(empty_url, schema_tables(empty_url, case.schema))
    assert any(before.values()), "the downgrade to the starting revision lost all the data"
    for step in [*chain[chain.index(start) + 1 :], "head"]:
        upgrade(empty_url, case.schema, step)
        after = snapshot(empty_url, schema_tables(empty_url, case.schema))
        assert_kept(before, after, f"upgrade to {step}")
        before = after
    assert current_revision(empty_url, case.schema) == head_revision(case.schema)
    assert schema_tables(empty_url, case.schema) == tables
    check()


@pytest.mark.parametrize("case", SCHEMAS, ids=str)
def test_downgrade_walks_every_revision_back_to_no_tables(empty_url: str, case: Case) -> None:
    upgrade(empty_url, case.schema)
    tables = schema_tables(empty_url, case.schema)
    fresh = schema_shape(empty_url, tables)
    case.seed(empty_url)
    chain = revisions(case.schema)
    for previous in reversed(["base", *chain[:-1]]):
        downgrade(empty_url, case.schema, previous)
        assert current_revision(empty_url, case.schema) == (None if previous == "base" else previous)
    assert schema_tables(empty_url, case.schema) == set()
    upgrade(empty_url, case.schema)
    assert schema_shape(empty_url, tables) == fresh
    case.seed(empty_url)()


def test_the_two_schemas_migrate_independently_in_one_database(empty_url: str) -> None:
    upgrade(empty_url, QUEUE_SCHEMA)
    upgrade(empty_url, SERVICE_SCHEMA)
    check = seed_queue(empty_url)
    downgrade(empty_url, SERVICE_SCHEMA, "base")
    assert current_revision(empty_url, QUEUE_SCHEMA) == head_revision(QUEUE_SCHEMA)
    check()
