"""TrueSkill ratings per bot version and rated ruleset (each version belongs to one game), and their history."""
from __future__ import annotations

from django.db import models

from bots.models import BotVersion


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


class RatingChange(models.Model):
    """One rating update caused by one match; ``sequence`` is the order updates were applied per game."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
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
