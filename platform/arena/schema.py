"""Schema steps that Django's migration operations do not take cheaply, shared by the apps' migrations."""
from __future__ import annotations

from typing import Sequence

from django.db import migrations

Index = tuple[str, str, str]  # (table, column, the name Django gave the index)


def drop_single_column_indexes(indexes: Sequence[Index]) -> migrations.RunPython:
    """Drop indexes by name, and create them again backwards.

    ``AlterField(db_index=False)`` would rebuild the whole table on SQLite (every match row copied) and
    leave PostgreSQL's ``_like`` twin of a text column's index; a named ``DROP INDEX`` is instant on both.
    Backwards the plain indexes come back, not the ``_like`` twins (they serve ``LIKE 'abc%'`` only)."""

    def forwards(apps, schema_editor) -> None:
        for _table, _column, name in indexes:
            schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.execute(f'DROP INDEX IF EXISTS "{name}_like"')

    def backwards(apps, schema_editor) -> None:
        for table, column, name in indexes:
            schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")')

    return migrations.RunPython(forwards, backwards)
