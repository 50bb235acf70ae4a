"""ratingchange.rating is no longer indexed alone: one_change_per_match (rating, match) and
change_rating_sequence (rating, sequence) begin with it, and every rated seat writes each index."""
import django.db.models.deletion
from django.db import migrations, models

from infra.schema import drop_single_column_indexes


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0004_scale_indexes'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[drop_single_column_indexes([
                ("ratings_ratingchange", "rating_id", "ratings_ratingchange_rating_id_5893d529", False),
            ])],
            state_operations=[
                migrations.AlterField(
                    model_name='ratingchange',
                    name='rating',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='ratings.rating'),
                ),
            ],
        ),
    ]
