"""Schema steps that Django's migration operations do not take cheaply, shared by the apps' migrations."""
from __future__ import annotations

from typing import Sequence

from django.db import migrations

#: (table, column, the name Django gave the column's index, whether the column is text: on PostgreSQL
#: Django gave a text column's index a ``<name>_like`` twin, with varchar_pattern_ops, for ``LIKE 'abc%'``)
Index = tuple[str, str, str, bool]


def _like_twin_sql(table: str, column: str, name: str) -> str:
    return f'CREATE INDEX IF NOT EXISTS "{name}_like" ON "{table}" ("{column}" varchar_pattern_ops)'


def drop_single_column_indexes(indexes: Sequence[Index]) -> migrations.RunPython:
    """Drop indexes by name, with their PostgreSQL ``_like`` twins, and create them again backwards.

    ``AlterField(db_index=False)`` would rebuild the whole table on SQLite (every match row copied) and
    leave PostgreSQL's ``_like`` twin of a text column's index; a named ``DROP INDEX`` is instant on both."""

    def forwards(apps, schema_editor) -> None:
        postgresql = schema_editor.connection.vendor == "postgresql"
        for _table, _column, name, text in indexes:
            schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')
            if postgresql and text:
                schema_editor.execute(f'DROP INDEX IF EXISTS "{name}_like"')

    def backwards(apps, schema_editor) -> None:
        postgresql = schema_editor.connection.vendor == "postgresql"
        for table, column, name, text in indexes:
            schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")')
            if postgresql and text:
                schema_editor.execute(_like_twin_sql(table, column, name))

    return migrations.RunPython(forwards, backwards)


def drop_like_twins(indexes: Sequence[Index]) -> migrations.RunPython:
    """Drop only the PostgreSQL ``_like`` twins of these text columns' indexes (nothing on SQLite, which
    has none), and create them again backwards."""

    def forwards(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for _table, _column, name, _text in indexes:
                schema_editor.execute(f'DROP INDEX IF EXISTS "{name}_like"')

    def backwards(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for table, column, name, _text in indexes:
                schema_editor.execute(_like_twin_sql(table, column, name))

    return migrations.RunPython(forwards, backwards)
