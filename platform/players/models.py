"""Players: the people who register, upload bots and organise tournaments."""
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.validators import ASCIIUsernameValidator
from django.db import models
from django.db.models.functions import Lower


class Player(AbstractUser):
    """A registered person. The built-in bots belong to the system player ``arena``."""

    # ASCII only, and unique in any letter case: a Cyrillic "а" or a capital would make a second "arena" or
    # "alice" that reads the same on every leaderboard and match page.
    username_validator = ASCIIUsernameValidator()
    username = models.CharField(
        "username", max_length=150, unique=True, validators=[username_validator],
        help_text="150 characters or fewer: ASCII letters, digits and @/./+/-/_ only.",
        error_messages={"unique": "A player with that username already exists."})
    bio = models.CharField(max_length=300, blank=True)

    SYSTEM_USERNAME = "arena"

    class Meta:
        ordering = ["username"]
        constraints = [models.UniqueConstraint(
            Lower("username"), name="player_username_any_case",
            violation_error_message="A player with that username (in some letter case) already exists.")]

    def __str__(self) -> str:
        return self.username

    @property
    def is_system(self) -> bool:
        return self.username == self.SYSTEM_USERNAME
