"""Writing several rows of one table in one statement, cheaply: the match pipeline's hot path.

Django's ``bulk_update`` builds a ``Case(When(...))`` expression per field and row and resolves each
(milliseconds of Python for a handful of rows); this writes the same ``UPDATE ... SET f = CASE key
WHEN ... END`` directly, with the fields' own value preparation.
"""
from __future__ import annotations

from typing import Any, Mapping

from django.db import connection, models


def update_rows(model: type[models.Model], key: str, rows: Mapping[Any, Mapping[str, Any]],
                where: Mapping[str, Any] | None = None, increment: tuple[str, ...] = ()) -> int:
    """``UPDATE`` the rows of ``model`` whose ``key`` column is a key of ``rows``, each to its values
    (``{key value: {field name: value}}``; every row names the same fields, none of them JSON), in one
    statement; ``where``: more equality conditions; ``increment``: fields that grow by one in every row.
    Returns the number of rows updated."""
    if not rows:
        return 0
    meta = model._meta
    keys = list(rows)
    names = list(next(iter(rows.values())))
    key_field = meta.get_field(key)
    postgres = connection.vendor == "postgresql"
    sets, params = [], []
    for name in names:
        field = meta.get_field(name)
        cast = f"::{field.cast_db_type(connection)}" if postgres else ""  # typed, not "unknown", parameters
        whens = []
        for k in keys:
            whens.append(f"WHEN %s THEN %s{cast}")
            params += [key_field.get_db_prep_value(k, connection),
                       field.get_db_prep_value(rows[k][name], connection)]
        sets.append(f"{connection.ops.quote_name(field.column)} = CASE {connection.ops.quote_name(key_field.column)} "
                    f"{' '.join(whens)} END")
    for name in increment:
        column = connection.ops.quote_name(meta.get_field(name).column)
        sets.append(f"{column} = {column} + 1")
    conditions = [f"{connection.ops.quote_name(key_field.column)} IN ({', '.join(['%s'] * len(keys))})"]
    params += [key_field.get_db_prep_value(k, connection) for k in keys]
    for name, value in (where or {}).items():
        field = meta.get_field(name)
        conditions.append(f"{connection.ops.quote_name(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection))
    sql = f"UPDATE {connection.ops.quote_name(meta.db_table)} SET {', '.join(sets)} WHERE {' AND '.join(conditions)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
