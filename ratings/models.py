"""TrueSkill ratings per bot version and rated ruleset (each version belongs to one game), and their history;
the same per player-count bracket; and ratings recomputed under other models (openskill, Elo)."""
from __future__ import annotations

from django.db import models

from bots.models import BotVersion

#: A rating is provisional (shown with a badge) while its sigma is above this: TrueSkill starts at 25/3 ≈ 8.33;
#: a bot comes under it after about 16 rated games at two players, 8 at four, 6 at six.
PROVISIONAL_SIGMA = 2.5


class Rating(models.Model):
    """A bot version's skill under one rated ruleset of its game (Catan's standard board and its 5-6
    player board are separate leaderboards)."""

    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=32, db_index=True)
    ruleset = models.CharField(max_length=64, default="standard")
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "ruleset", "-mu"]
        constraints = [models.UniqueConstraint(fields=["bot_version", "ruleset"], name="one_rating_per_ruleset")]
        indexes = [models.Index(fields=["game", "ruleset"])]

    def __str__(self) -> str:
        return f"{self.bot_version} ({self.ruleset}): {self.mu:.2f} ± {self.sigma:.2f}"

    @property
    def conservative(self) -> float:
        """The leaderboard's sort key: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    @property
    def uncertainty(self) -> float:
        """3 sigma: the skill is very probably within mu ± this."""
        return 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """Too few games to trust the rating yet: sigma above ``PROVISIONAL_SIGMA``."""
        return self.sigma > PROVISIONAL_SIGMA


class RatingChange(models.Model):
    """One rating update caused by one match; ``sequence`` is the order updates were applied per game."""

    # Not indexed alone: one_change_per_match and change_rating_sequence begin with it.
    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes", db_index=False)
    match = models.ForeignKey("tournaments.Match", on_delete=models.CASCADE, related_name="rating_changes")
    sequence = models.PositiveIntegerField()
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rating", "sequence"]
        constraints = [models.UniqueConstraint(fields=["rating", "match"], name="one_change_per_match")]
        # A rating's history in order (leaderboards with ?history=1, charts).
        indexes = [models.Index(fields=["rating", "sequence"], name="change_rating_sequence")]


class GameLock(models.Model):
    """One row per game, locked FOR UPDATE while a match of that game is rated (serializes updates)."""

    game = models.CharField(max_length=32, primary_key=True)
    sequence = models.PositiveIntegerField(default=0)  # matches rated so far in this game


class BracketRating(models.Model):
    """A bot version's TrueSkill under one rated ruleset, from its matches of one player-count bracket only
    ("2", "3-4", "5-6": the games play differently at two and at six); the overall one is ``Rating``."""

    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="bracket_ratings")
    game = models.CharField(max_length=32)
    ruleset = models.CharField(max_length=64, default="standard")
    bracket = models.CharField(max_length=8)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "ruleset", "bracket", "-mu"]
        constraints = [models.UniqueConstraint(fields=["bot_version", "ruleset", "bracket"],
                                               name="one_rating_per_bracket")]
        indexes = [models.Index(fields=["game", "ruleset", "bracket"])]

    def __str__(self) -> str:
        return f"{self.bot_version} ({self.ruleset}, {self.bracket} players): {self.mu:.2f} ± {self.sigma:.2f}"

    conservative, uncertainty, provisional = Rating.conservative, Rating.uncertainty, Rating.provisional


class ModelRating(models.Model):
    """A rating recomputed by ``manage.py recompute_ratings --model M``: the rated history replayed in order
    under model M (trueskill, openskill, elo), overall (bracket "all") and per player-count bracket.

    Elo has no uncertainty: ``mu`` is the Elo rating and ``sigma`` 0."""

    class Model(models.TextChoices):
        TRUESKILL = "trueskill", "TrueSkill"
        OPENSKILL = "openskill", "OpenSkill (Plackett-Luce)"
        ELO = "elo", "Elo (pairwise)"

    model = models.CharField(max_length=16, choices=Model.choices)
    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="model_ratings")
    game = models.CharField(max_length=32)
    ruleset = models.CharField(max_length=64, default="standard")
    bracket = models.CharField(max_length=8, default="all")
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model", "game", "ruleset", "bracket", "-mu"]
        constraints = [models.UniqueConstraint(fields=["model", "bot_version", "ruleset", "bracket"],
                                               name="one_rating_per_model")]
        indexes = [models.Index(fields=["model", "game", "ruleset", "bracket"])]

    def __str__(self) -> str:
        return f"{self.bot_version} ({self.model}, {self.ruleset}, {self.bracket}): {self.mu:.2f} ± {self.sigma:.2f}"

    conservative, uncertainty, provisional = Rating.conservative, Rating.uncertainty, Rating.provisional
