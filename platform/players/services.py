"""Writes on players."""
from players.models import Player


def system_player() -> Player:
    """The owner of the built-in bots (created on first use, cannot log in)."""
    player, created = Player.objects.get_or_create(username=Player.SYSTEM_USERNAME)
    if created:
        player.set_unusable_password()
        player.save(update_fields=["password"])
    return player
