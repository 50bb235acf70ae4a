"""Writes on players."""
from django.db import transaction
from rest_framework.authtoken.models import Token

from players.models import Player


#: names nobody may register: the built-in bots' owner, and names that would read as the platform speaking
RESERVED_USERNAMES = frozenset({Player.SYSTEM_USERNAME, "admin", "administrator", "root", "staff", "system"})


def username_problem(username: str) -> str | None:
    """Why a new player may not take ``username`` (None: free): reserved, or taken in some letter case.
    (Its characters are the username field's validator's to check.)"""
    if username.lower() in RESERVED_USERNAMES:
        return "this username is reserved"
    if Player.objects.filter(username__iexact=username).exists():
        return "a player with that username (in some letter case) already exists"
    return None


def system_player() -> Player:
    """The owner of the built-in bots (created on first use, cannot log in)."""
    player, created = Player.objects.get_or_create(username=Player.SYSTEM_USERNAME)
    if created:
        player.set_unusable_password()
        player.save(update_fields=["password"])
    return player


def rotate_token(player: Player) -> Token:
    """A new API token for ``player``; the old one stops working at once."""
    with transaction.atomic():
        Token.objects.filter(user=player).delete()
        return Token.objects.create(user=player)


def revoke_token(player: Player) -> bool:
    """Delete the player's API token (until they ask for a new one); whether there was one."""
    deleted, _ = Token.objects.filter(user=player).delete()
    return deleted > 0
