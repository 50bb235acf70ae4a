"""Fixed SQL statements for the match pipeline's hot path, and running several in one round trip.

Django's query building costs milliseconds of Python for the handful of rows a match writes (``bulk_update``
alone builds and resolves a ``Case(When(...))`` per field and row); these build the same statements
directly, with the fields' own value preparation.
"""
from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

from django.db import connection, models

#: One SQL statement (``%s`` placeholders) and its parameters.
Statement = tuple[str, Sequence[Any]]


class Result(NamedTuple):
    """What one statement of a batch gave: the rows it changed and the rows it returned."""

    rowcount: int
    rows: list[tuple]


def run_statements(statements: Sequence[Statement]) -> list[Result]:
    """Run ``statements`` in order on the default connection; each one's result.

    PostgreSQL: all of them in one round trip (one query string of several statements). Each statement
    still takes its own snapshot when it starts, as separate statements do, so a read placed after a
    statement that waited on a row lock sees what the lock's previous holder committed. Other backends
    (SQLite refuses several statements in one call): one call each.
    """
    results = []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and len(statements) > 1:
            cursor.execute("; ".join(sql for sql, _ in statements), [p for _, params in statements for p in params])
            while True:
                results.append(Result(cursor.rowcount, cursor.fetchall() if cursor.description else []))
                if not cursor.nextset():
                    break
        else:
            for sql, params in statements:
                cursor.execute(sql, params)
                results.append(Result(cursor.rowcount, cursor.fetchall() if cursor.description else []))
    return results


def table(model: type[models.Model]) -> str:
    """The quoted table name of ``model``."""
    return connection.ops.quote_name(model._meta.db_table)


def update_rows(model: type[models.Model], key: str, rows: Mapping[Any, Mapping[str, Any]],
                where: Mapping[str, Any] | None = None, increment: tuple[str, ...] = (),
                condition: Statement | None = None) -> Statement:
    """The ``UPDATE`` of the rows of ``model`` whose ``key`` column is a key of ``rows``, each to its values
    (``{key value: {field name: value}}``; every row names the same fields, none of them JSON), as one
    statement; ``where``: more equality conditions; ``increment``: fields that grow by one in every row;
    ``condition``: one more SQL condition (and its parameters)."""
    meta = model._meta
    keys = list(rows)
    names = list(next(iter(rows.values())))
    key_field = meta.get_field(key)
    postgres = connection.vendor == "postgresql"
    quote = connection.ops.quote_name
    key_column = quote(key_field.column)
    sets, params = [], []
    for name in names:
        field = meta.get_field(name)
        cast = f"::{field.cast_db_type(connection)}" if postgres else ""  # typed, not "unknown", parameters
        for k in keys:
            params += [key_field.get_db_prep_value(k, connection), field.get_db_prep_value(rows[k][name], connection)]
        sets.append(f"{quote(field.column)} = CASE {key_column} {' '.join([f'WHEN %s THEN %s{cast}'] * len(keys))} END")
    for name in increment:
        column = quote(meta.get_field(name).column)
        sets.append(f"{column} = {column} + 1")
    conditions = [f"{key_column} IN ({', '.join(['%s'] * len(keys))})"]
    params += [key_field.get_db_prep_value(k, connection) for k in keys]
    for name, value in (where or {}).items():
        field = meta.get_field(name)
        conditions.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection))
    if condition:
        conditions.append(condition[0])
        params += condition[1]
    return f"UPDATE {table(model)} SET {', '.join(sets)} WHERE {' AND '.join(conditions)}", params


def insert_rows(model: type[models.Model], rows: Sequence[Mapping[str, Any]], returning: str = "") -> Statement:
    """The ``INSERT`` of ``rows`` (``{field name: value}``, every row the same fields, none of them JSON) into
    ``model``'s table as one statement; ``returning``: a ``RETURNING`` list of columns."""
    meta = model._meta
    names = list(rows[0])
    fields = [meta.get_field(name) for name in names]  # a name or an attname ("rating_id")
    params = [field.get_db_prep_save(row[name], connection) for row in rows for name, field in zip(names, fields)]
    values = ", ".join([f"({', '.join(['%s'] * len(fields))})"] * len(rows))
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    return (f"INSERT INTO {table(model)} ({columns}) VALUES {values}" + (f" RETURNING {returning}" if returning else ""),
            params)
