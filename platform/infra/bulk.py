"""Fixed SQL statements for the match pipeline's hot path, and running several in one round trip.

Django's query building costs milliseconds of Python for the handful of rows a match writes (``bulk_update``
alone builds and resolves a ``Case(When(...))`` per field and row); these build the same statements
directly, with the fields' own value preparation.
"""
from __future__ import annotations

import datetime
import re
import sqlite3
import time
import weakref
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

try:
    import fcntl
except ImportError:  # not on Windows: writers poll the database's lock there
    fcntl = None

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.utils import timezone

#: One SQL statement (``%s`` placeholders) and its parameters.
Statement = tuple[str, Sequence[Any]]


class Result(NamedTuple):
    """What one statement of a batch gave: the rows it changed and the rows it returned."""

    rowcount: int
    rows: list[tuple]


def run_statements(statements: Sequence[Statement], flush: bool = True, commit: bool = False) -> list[Result]:
    """Run ``statements`` in order on the default connection; each one's result.

    PostgreSQL: all of them in one round trip (one query string, each a prepared statement of the connection:
    outside a transaction they form one). Each statement still takes its own snapshot when it starts, as
    separate statements do, so a read placed after a statement that waited on a row lock sees what the lock's
    previous holder committed. Other backends (SQLite refuses several statements in one call): one call each.

    ``flush=False`` (PostgreSQL): the commit of the current transaction (or of these statements) does not
    wait for its WAL to reach the disk (``synchronous_commit = off``: it is visible at once, atomic and in
    order, and a crash of the database server may lose the last fraction of a second of such commits). The
    match pipeline's writes, which the recovery replays if lost. SQLite's WAL mode with ``synchronous =
    NORMAL`` (settings) already commits so.

    ``commit=True``: these are the last statements of the outermost atomic block, whose transaction PostgreSQL
    then commits in the same round trip (the block finds nothing left to commit when it closes). Inside a
    savepoint, or on other backends, the block commits as usual.
    """
    flush = flush or settings.ARENA.get("PIPELINE_FLUSH", False)  # the operator's choice wins (settings)
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor == "postgresql":
        return _run_batch(db, statements, flush, commit)
    results = []
    with db.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)
            results.append(Result(cursor.rowcount, cursor.fetchall() if cursor.description else []))
    return results


#: The most statement shapes a connection prepares (the match pipeline has a few dozen); past it, plain SQL.
PREPARED_MAX = 500

#: Per database connection (psycopg's object: a new connection starts afresh): the statements it has
#: prepared, (SQL, parameter types) -> name, and the number of names it has used.
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_PARAMETER_TYPES = ((bool, "boolean"), (int, "bigint"), (float, "double precision"), ((bytes, memoryview), "bytea"),
                    (datetime.datetime, "timestamptz"), (datetime.date, "date"), (datetime.timedelta, "interval"))
_PLACEHOLDER = re.compile(r"%[s%]")


def _parameter_type(value: Any) -> str:
    """The declared type of a prepared statement's parameter: ``unknown`` (inferred from where it stands, as
    a quoted literal's is) for strings, NULL and the rest."""
    return next((name for kind, name in _PARAMETER_TYPES if isinstance(value, kind)), "unknown")


def _dollar_sql(sql: str) -> str:
    """``sql`` with its ``%s`` placeholders numbered as a prepared statement's (``$1``, ``$2``...); ``%%`` stays,
    for the string's client-side binding."""
    count = iter(range(1, 1 << 30))
    return _PLACEHOLDER.sub(lambda m: m.group() if m.group() == "%%" else f"${next(count)}", sql)


def _run_batch(db, statements: Sequence[Statement], flush: bool, commit: bool) -> list[Result]:
    """PostgreSQL: ``statements`` in one query string, one round trip, each run as a prepared statement of the
    connection (``EXECUTE``; the ``PREPARE`` goes with its first use): parsed and planned once per connection
    and statement shape, not at every match (planning the match's six-table read alone costs the server
    ~0.25 ms). One string, so the server has the whole batch at once: a batch holding the game's rating lock
    never waits for the rest of itself. Outside a transaction the statements form one, as a query string's
    do; each still takes its own snapshot when it starts."""
    db.validate_no_broken_transaction()
    db.validate_thread_sharing()
    db.ensure_connection()
    conn = db.connection
    known = _prepared.setdefault(conn, {"names": {}, "used": 0})
    # A block's first statements: psycopg would send the block's BEGIN in a round trip of its own; ours goes in
    # the string, psycopg told it is in autocommit meanwhile (the one private attribute used: where it is
    # missing, psycopg begins as usual).
    begin = (not conn.autocommit and conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
             and hasattr(conn, "_autocommit") and conn.isolation_level is None and conn.read_only is None
             and conn.deferrable is None)
    # Only the outermost block's own transaction: a savepoint's caller may still write or roll back.
    commit = commit and db.in_atomic_block and len(db.atomic_blocks) == 1 and not db.needs_rollback
    parts = (["BEGIN"] if begin else []) + ([] if flush else ["SET LOCAL synchronous_commit = off"])
    wanted, params = set(), []  # the positions of the statements' own results among the string's
    for sql, values in statements:
        types = tuple(_parameter_type(v) for v in values)
        name = known["names"].get((sql, types))
        if name is None and len(known["names"]) < PREPARED_MAX:
            name = known["names"][sql, types] = f"arena_{known['used']}"
            known["used"] += 1
            parts.append(f"PREPARE {name} ({', '.join(types)}) AS {_dollar_sql(sql)}" if types
                         else f"PREPARE {name} AS {_dollar_sql(sql)}")
        wanted.add(len(parts))
        parts.append(sql if name is None else f"EXECUTE {name}" + (f"({', '.join(['%s'] * len(values))})" if values else ""))
        params += values
    if commit:  # the block's commit then finds psycopg idle and sends nothing
        parts.append("COMMIT")
    logged = db.queries_logged
    started = time.monotonic() if logged else 0.0
    results = []
    with db.wrap_database_errors:
        if begin:
            conn._autocommit = True
        try:
            with psycopg.ClientCursor(conn) as cursor:
                cursor.execute("; ".join(parts), params)
                for position in range(len(parts)):
                    if position in wanted:
                        results.append(Result(cursor.rowcount, cursor.fetchall() if cursor.description else []))
                    cursor.nextset()
        except Exception:
            # Which of its PREPAREs ran is unknown: new names from here on (the old ones go with the
            # connection, at the latest after CONN_MAX_AGE).
            known["names"].clear()
            raise
        finally:
            if begin:
                conn._autocommit = False
    if logged:  # the statements themselves, one entry per round trip (as Django's debug cursor logs one)
        db.queries_log.append({"sql": "; ".join(sql for sql, _ in statements),
                               "time": f"{time.monotonic() - started:.3f}"})
    return results


@contextmanager
def writers_in_turn() -> Iterator[None]:
    """Hold the embedded database's write turn across this block (SQLite; elsewhere nothing).

    SQLite lets one writer at a time and makes the others poll with growing sleeps (1, 2, 5, 10 ms...), so
    two workers that write often lose more time asleep than writing. The match pipeline's writers queue on
    an OS lock next to the database file instead: the next one wakes the moment the last one is done. The
    database's own lock stays the truth; writers that do not queue (the web, beat) poll as before. An OS
    lock dies with its process. Inside a transaction nothing is taken: it may hold the database's lock
    already (IMMEDIATE), and waiting for the turn while holding it could keep the turn's holder waiting.
    The write-ahead log is checkpointed after the turn, every CHECKPOINT_EVERY_TURNS turns, not in it."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "sqlite" or fcntl is None or db.in_atomic_block:
        yield
        return
    lock = _turn_file(str(db.settings_dict["NAME"]))
    db.ensure_connection()
    if _turns["connection"] is not db.connection:  # a new connection: its commits leave checkpoints to us
        db.connection.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_BOUND_PAGES}")
        _turns.update(connection=db.connection, taken=0)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
    _turns["taken"] += 1
    if _turns["taken"] % CHECKPOINT_EVERY_TURNS == 0 and db.connection is _turns["connection"]:
        try:
            db.connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:  # what was written is committed; SQLite's own checkpoint is the bound
            pass


#: SQLite checkpoints its write-ahead log in the COMMIT that takes it past ``wal_autocheckpoint`` pages
#: (1,000 by default), while that writer still holds the pipeline's write turn: ~14% of the turn's time
#: with two workers (docs/architecture.md). The pipeline's writers checkpoint after leaving the turn instead,
#: every this many turns of theirs (a passive checkpoint: it waits for no reader or writer, the other
#: worker writes meanwhile), and SQLite's own stays as a bound a few times further out.
CHECKPOINT_EVERY_TURNS = 32
WAL_CHECKPOINT_BOUND_PAGES = 4000
_turns: dict[str, Any] = {"connection": None, "taken": 0}  # this process's pipeline connection, its turns


@cache
def _turn_file(database: str):
    return open(f"{database}-writers.lock", "a+b")  # noqa: SIM115 - kept open for the process's life


def table(model: type[models.Model]) -> str:
    """The quoted table name of ``model``."""
    return _table(model, connection.vendor)


@cache
def _table(model: type[models.Model], vendor: str) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def update_rows(model: type[models.Model], key: str, rows: Mapping[Any, Mapping[str, Any]],
                where: Mapping[str, Any] | None = None, increment: tuple[str, ...] = (),
                condition: Statement | None = None) -> Statement:
    """The ``UPDATE`` of the rows of ``model`` whose ``key`` column is a key of ``rows``, each to its values
    (``{key value: {field name: value}}``; every row names the same fields, none of them JSON), as one
    statement; ``where``: more equality conditions; ``increment``: fields that grow by one in every row;
    ``condition``: one more SQL condition (and its parameters)."""
    db = connections[DEFAULT_DB_ALIAS]
    keys = list(rows)
    names = tuple(next(iter(rows.values())))
    where = where or {}
    sql, key_field, fields, where_fields = _update_sql(model, key, names, len(keys), tuple(where), increment,
                                                       condition[0] if condition else "", db.vendor)
    params = []
    for name, field in zip(names, fields):
        for k in keys:
            params += [key_field.get_db_prep_value(k, db), field.get_db_prep_value(rows[k][name], db)]
    params += [key_field.get_db_prep_value(k, db) for k in keys]
    params += [field.get_db_prep_value(value, db) for field, value in zip(where_fields, where.values())]
    if condition:
        params += condition[1]
    return sql, params


@lru_cache(maxsize=256)
def _update_sql(model, key, names, count, where, increment, condition, vendor):
    """The text of an ``update_rows`` statement (built once per shape: the fields, the number of rows)."""
    db = connections[DEFAULT_DB_ALIAS]
    meta = model._meta
    quote = db.ops.quote_name
    key_field = meta.get_field(key)
    key_column = quote(key_field.column)
    fields = [meta.get_field(name) for name in names]
    sets = []
    for field in fields:
        cast = f"::{field.cast_db_type(db)}" if vendor == "postgresql" else ""  # typed, not "unknown", parameters
        sets.append(f"{quote(field.column)} = CASE {key_column} {' '.join([f'WHEN %s THEN %s{cast}'] * count)} END")
    for name in increment:
        column = quote(meta.get_field(name).column)
        sets.append(f"{column} = {column} + 1")
    where_fields = [meta.get_field(name) for name in where]
    conditions = [f"{key_column} IN ({', '.join(['%s'] * count)})"]
    conditions += [f"{quote(field.column)} = %s" for field in where_fields]
    conditions += [condition] if condition else []
    sql = f"UPDATE {_table(model, vendor)} SET {', '.join(sets)} WHERE {' AND '.join(conditions)}"
    return sql, key_field, fields, where_fields


def insert_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]], returning: str = "") -> Statement:
    """The ``INSERT`` of ``rows`` (``{field name: value}``, every row the same fields, none of them JSON) into
    ``model``'s table as one statement; ``returning``: a ``RETURNING`` list of columns."""
    db = connections[DEFAULT_DB_ALIAS]
    names = tuple(rows[0])
    sql, fields = _insert_sql(model, names, len(rows), returning, db.vendor)
    return sql, [field.get_db_prep_save(row[name], db) for row in rows for name, field in zip(names, fields)]


def create_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Insert new rows of ``model`` (``{field name or attname: value}``, every row the same fields; the
    model's defaults for the others, ``auto_now``/``auto_now_add`` fields now) and return their primary keys in
    order: ``bulk_create`` without the model instances, a fifth of its Python for thousands of rows (a
    tournament's matches and seats). One statement per ``CREATE_ROWS_PER_STATEMENT`` rows."""
    if not rows:
        return []
    db = connections[DEFAULT_DB_ALIAS]
    meta = model._meta
    given = tuple(rows[0])
    now = timezone.now()
    # Fields every row shares are prepared once: the defaults, and any given field equal in every row.
    filled = {f.attname: now if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False) else f.get_default()
              for f in meta.concrete_fields if not f.primary_key and f.attname not in given and f.name not in given}
    fields = [meta.get_field(name) for name in given] + [meta.get_field(name) for name in filled]
    shared = [f.get_db_prep_save(value, db) for f, value in zip(fields[len(given):], filled.values())]
    same = {}  # position -> prepared value, for given fields whose value is the very same object in every row
    for position, name in enumerate(given):
        first = rows[0][name]
        if all(row[name] is first for row in rows):
            same[position] = fields[position].get_db_prep_save(first, db)
    ids: list[int] = []
    with db.cursor() as cursor:
        for start in range(0, len(rows), CREATE_ROWS_PER_STATEMENT):
            chunk = rows[start:start + CREATE_ROWS_PER_STATEMENT]
            sql, _ = _insert_sql(model, tuple(f.attname for f in fields), len(chunk), db.ops.quote_name(meta.pk.column),
                                 db.vendor)
            params: list[Any] = []
            for row in chunk:
                params += [same[i] if i in same else fields[i].get_db_prep_save(row[name], db)
                           for i, name in enumerate(given)]
                params += shared
            cursor.execute(sql, params)
            ids += [pk for pk, in cursor.fetchall()]
    return ids


#: Rows per ``create_rows`` statement: within SQLite's 32,766 parameters for models of up to 65 fields.
CREATE_ROWS_PER_STATEMENT = 500


@lru_cache(maxsize=256)
def _insert_sql(model, names, count, returning, vendor):
    db = connections[DEFAULT_DB_ALIAS]
    fields = [model._meta.get_field(name) for name in names]  # a name or an attname ("rating_id")
    values = ", ".join([f"({', '.join(['%s'] * len(fields))})"] * count)
    columns = ", ".join(db.ops.quote_name(f.column) for f in fields)
    return (f"INSERT INTO {_table(model, vendor)} ({columns}) VALUES {values}"
            + (f" RETURNING {returning}" if returning else "")), fields
