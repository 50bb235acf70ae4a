"""TrueSkill ratings per bot version (each version belongs to one game), and their history."""
from __future__ import annotations

from django.db import models

from bots.models import GAME_CHOICES, BotVersion


class Rating(models.Model):
    bot_version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, related_name="rating")
    game = models.CharField(max_length=32, choices=GAME_CHOICES, db_index=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-mu"]

    def __str__(self) -> str:
        return f"{self.bot_version}: {self.mu:.2f} ± {self.sigma:.2f}"

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


class GameLock(models.Model):
    """One row per game, locked FOR UPDATE while a match of that game is rated (serializes updates)."""

    game = models.CharField(max_length=32, choices=GAME_CHOICES, primary_key=True)
    sequence = models.PositiveIntegerField(default=0)  # matches rated so far in this game
