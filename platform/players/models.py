"""Players: the people who register, upload bots and organise tournaments."""
from django.contrib.auth.models import AbstractUser
from django.db import models


class Player(AbstractUser):
    """A registered person. The built-in bots belong to the system player ``arena``."""

    bio = models.CharField(max_length=300, blank=True)

    SYSTEM_USERNAME = "arena"

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.username

    @property
    def is_system(self) -> bool:
        return self.username == self.SYSTEM_USERNAME
