
from django.db import migrations, models


def keep_past_ratings(apps, schema_editor):
    """Before this migration every tournament was rated under the standard rules: say so on the rows
    whose matches moved the ratings, so history reads the same as before."""
    Match = apps.get_model("tournaments", "Match")
    Tournament = apps.get_model("tournaments", "Tournament")
    Match.objects.filter(rated=True).update(ruleset="standard")
    Tournament.objects.filter(matches__rated=True).distinct().update(rated=True, ruleset="standard")
    for tournament in Tournament.objects.all():
        tournament.planned_matches = tournament.matches.count()
        tournament.save(update_fields=["planned_matches"])


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='ruleset',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='tournament',
            name='planned_matches',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='tournament',
            name='rated',
            field=models.BooleanField(db_index=True, default=False),
        ),
        migrations.AddField(
            model_name='tournament',
            name='ruleset',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AlterField(
            model_name='match',
            name='game',
            field=models.CharField(db_index=True, max_length=32),
        ),
        migrations.AlterField(
            model_name='tournament',
            name='game',
            field=models.CharField(db_index=True, max_length=32),
        ),
        migrations.RunPython(keep_past_ratings, migrations.RunPython.noop),
    ]
