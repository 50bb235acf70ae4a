"""Indexes that a composite index beginning with the same column already serves are dropped: every index
of a match is written at each of its status changes (PostgreSQL writes all of a row's indexes when an
indexed column changes), and every seat's at its insert.

- match.status: (status, lease_until) begins with it;
- match.tournament: (tournament, status);
- matchseat.match: seat_unique (match, seat);
- matchseat.bot_version: seat_version_newest_match (bot_version, -match).
"""
import django.db.models.deletion
from django.db import migrations, models

from infra.schema import drop_single_column_indexes


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0004_regression_gate'),
        ('tournaments', '0007_match_log'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[drop_single_column_indexes([
                ("tournaments_match", "status", "tournaments_match_status_ae5cb519", True),
                ("tournaments_match", "tournament_id", "tournaments_match_tournament_id_443e00bf", False),
                ("tournaments_matchseat", "match_id", "tournaments_matchseat_match_id_072751ce", False),
                ("tournaments_matchseat", "bot_version_id", "tournaments_matchseat_bot_version_id_d09598fb",
                 False),
            ])],
            state_operations=[
                migrations.AlterField(
                    model_name='match',
                    name='status',
                    field=models.CharField(choices=[('queued', 'queued'), ('running', 'running'), ('finished', 'finished'), ('failed', 'failed')], default='queued', max_length=16),
                ),
                migrations.AlterField(
                    model_name='match',
                    name='tournament',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='tournaments.tournament'),
                ),
                migrations.AlterField(
                    model_name='matchseat',
                    name='bot_version',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='bots.botversion'),
                ),
                migrations.AlterField(
                    model_name='matchseat',
                    name='match',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='seats', to='tournaments.match'),
                ),
            ],
        ),
    ]
