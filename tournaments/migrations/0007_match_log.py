"""Match logs leave the match row for their own table, in the compact stored form (engines.logcodec).

Every existing log is converted (replayed once to find each move's index, then decoded and compared:
a log the engine does not give back exactly is stored whole, compressed). Backwards: the JSON again.
"""
import django.db.models.deletion
from django.db import migrations, models

BATCH = 500


def logs_to_table(apps, schema_editor):
    from engines.logcodec import encode_checked

    Match = apps.get_model("tournaments", "Match")
    MatchLog = apps.get_model("tournaments", "MatchLog")
    rows = Match.objects.filter(log__isnull=False).order_by("pk").values_list("pk", "log")
    batch = []
    for pk, log in rows.iterator(chunk_size=BATCH):
        batch.append(MatchLog(match_id=pk, data=encode_checked(log)))
        if len(batch) >= BATCH:
            MatchLog.objects.bulk_create(batch)
            batch = []
    MatchLog.objects.bulk_create(batch)
    if schema_editor.connection.vendor == "postgresql":  # check the new rows' keys before the ALTER TABLE
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def logs_to_rows(apps, schema_editor):
    from engines.logcodec import decode

    Match = apps.get_model("tournaments", "Match")
    MatchLog = apps.get_model("tournaments", "MatchLog")
    for pk, data in MatchLog.objects.order_by("pk").values_list("pk", "data").iterator(chunk_size=BATCH):
        Match.objects.filter(pk=pk).update(log=decode(bytes(data)))


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0006_ladder_schedule'),
    ]

    operations = [
        migrations.CreateModel(
            name='MatchLog',
            fields=[
                ('match', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='stored_log', serialize=False, to='tournaments.match')),
                ('data', models.BinaryField()),
            ],
        ),
        migrations.RunPython(logs_to_table, logs_to_rows, elidable=False),
        migrations.RemoveField(
            model_name='match',
            name='log',
        ),
    ]
