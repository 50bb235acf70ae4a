"""Bots and their immutable versions (built-in bots are versions too)."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Bot(models.Model):
    """A named bot of one player for one game; its code lives in its versions."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    # A game id of engines.games; checked by the services (no choices: a new game needs no migration).
    game = models.CharField(max_length=32, db_index=True)
    name = models.SlugField(max_length=64)
    description = models.CharField(max_length=300, blank=True)
    # The owner lets other players enter this bot in their (friendly) tournaments.
    accepts_challenges = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_name")]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"

    def latest_version(self) -> "BotVersion | None":
        return self.versions.order_by("-number").first()


class BotVersion(models.Model):
    """One immutable version of a bot's code. Uploaded code is stored once and never changed."""

    class Kind(models.TextChoices):
        BUILTIN = "builtin", "built-in"
        UPLOAD = "upload", "upload"

    class Status(models.TextChoices):
        PENDING = "pending", "pending validation"
        VALID = "valid", "valid"
        INVALID = "invalid", "invalid"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    builtin_name = models.CharField(max_length=64, blank=True)
    package = models.FileField(upload_to="bots/", blank=True)
    original_name = models.CharField(max_length=255, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    status_detail = models.TextField(blank=True)
    # The regression gate (tournaments.running.validation): how this version placed against the owner's previous
    # valid version in duplicate series during validation. None: no previous version (or not yet played).
    # Owner-only, like the rest of validation.
    regression = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["bot", "number"]
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="bot_version_unique_number")]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    @property
    def game(self) -> str:
        return self.bot.game

    @property
    def label(self) -> str:
        """The name shown on leaderboards and match pages."""
        return self.make_label(self.kind, self.bot.owner.username, self.bot.name, self.number)

    @classmethod
    def make_label(cls, kind: str, owner: str, name: str, number: int) -> str:
        """A version's label from its parts (reads that fetch values, not objects)."""
        return f"{'' if kind == cls.Kind.BUILTIN else owner + '/'}{name} v{number}"

    @property
    def playable(self) -> bool:
        return self.status == self.Status.VALID
