"""PostgreSQL's ``_like`` twin of match.game (varchar_pattern_ops, for ``LIKE 'abc%'``) is dropped: nothing
searches game ids by prefix, and a match's status changes write every index of its row (no HOT update).
The plain index stays; on SQLite there is no twin."""
from django.db import migrations

from infra.schema import drop_like_twins


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0008_no_index_duplicated_by_a_composite'),
    ]

    operations = [drop_like_twins([("tournaments_match", "game", "tournaments_match_game_adf4e0f7", True)])]
