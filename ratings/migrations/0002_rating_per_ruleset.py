import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0003_accepts_challenges_game_without_choices'),
        ('ratings', '0001_initial'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='rating',
            options={'ordering': ['game', 'ruleset', '-mu']},
        ),
        migrations.AddField(
            model_name='rating',
            name='ruleset',
            field=models.CharField(default='standard', max_length=64),
        ),
        migrations.AlterField(
            model_name='gamelock',
            name='game',
            field=models.CharField(max_length=32, primary_key=True, serialize=False),
        ),
        migrations.AlterField(
            model_name='rating',
            name='bot_version',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ratings', to='bots.botversion'),
        ),
        migrations.AlterField(
            model_name='rating',
            name='game',
            field=models.CharField(db_index=True, max_length=32),
        ),
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(fields=['game', 'ruleset'], name='ratings_rat_game_bb8970_idx'),
        ),
        migrations.AddConstraint(
            model_name='rating',
            constraint=models.UniqueConstraint(fields=('bot_version', 'ruleset'), name='one_rating_per_ruleset'),
        ),
    ]
