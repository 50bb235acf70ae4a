"""Writes on bots: registering the built-in bots, uploading new versions."""
from __future__ import annotations

from django.db import transaction

from bots.models import Bot, BotVersion
from engines.games import available_games, builtin_bots
from players.services import system_player


@transaction.atomic
def register_builtin_bots(games: list[str] | None = None) -> list[BotVersion]:
    """Make sure every built-in bot of every available game has its (valid) version 1. Idempotent."""
    owner = system_player()
    versions = []
    for game in games or available_games():
        for name, cls in builtin_bots(game).items():
            doc = (cls.__doc__ or "").strip().splitlines()
            bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=name,
                                               defaults={"description": doc[0] if doc else ""})
            version, _ = BotVersion.objects.get_or_create(
                bot=bot, number=1,
                defaults={"kind": BotVersion.Kind.BUILTIN, "builtin_name": name, "status": BotVersion.Status.VALID},
            )
            versions.append(version)
    return versions
