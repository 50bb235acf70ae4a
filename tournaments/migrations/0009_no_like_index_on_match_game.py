"""PostgreSQL's ``_like`` twin of match.game (varchar_pattern_ops, for ``LIKE 'abc%'``) is dropped: nothing
searches game ids by prefix, and a match's status changes write every index of its row (no HOT update).
Django creates the twin with the plain index; on SQLite there is none."""
from django.db import migrations

LIKE_INDEX = "tournaments_match_game_adf4e0f7_like"


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'DROP INDEX IF EXISTS "{LIKE_INDEX}"')


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{LIKE_INDEX}" ON "tournaments_match" ("game" varchar_pattern_ops)')


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0008_no_index_duplicated_by_a_composite'),
    ]

    operations = [migrations.RunPython(drop, create)]
