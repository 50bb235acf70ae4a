import django.contrib.auth.validators
from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Lower


def refuse_case_twins(apps, schema_editor):
    """The constraint cannot be made while two players' names differ in letter case only: name them."""
    Player = apps.get_model("players", "Player")
    twins = (Player.objects.annotate(name=Lower("username")).values("name").annotate(n=Count("id"))
             .filter(n__gt=1).values_list("name", flat=True)[:20])
    if twins:
        raise RuntimeError("players whose usernames differ in letter case only (rename all but one, then migrate "
                           f"again): {', '.join(twins)}")


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('players', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='player',
            name='username',
            field=models.CharField(error_messages={'unique': 'A player with that username already exists.'}, help_text='150 characters or fewer: ASCII letters, digits and @/./+/-/_ only.', max_length=150, unique=True, validators=[django.contrib.auth.validators.ASCIIUsernameValidator()], verbose_name='username'),
        ),
        migrations.RunPython(refuse_case_twins, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.UniqueConstraint(Lower('username'), name='player_username_any_case', violation_error_message='A player with that username (in some letter case) already exists.'),
        ),
    ]
