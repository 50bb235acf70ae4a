from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0002_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='bot',
            name='accepts_challenges',
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name='bot',
            name='game',
            field=models.CharField(db_index=True, max_length=32),
        ),
    ]
