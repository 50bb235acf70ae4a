"""Reads of bots and versions."""
from __future__ import annotations

import re

from django.db.models import QuerySet

from bots.models import Bot, BotVersion
from players.models import Player


class BotNotFound(LookupError):
    pass


def resolve_version(game: str, spec: str) -> BotVersion:
    """A bot version from a spec: ``heuristic`` (a built-in bot), ``owner/name`` (its newest valid
    version) or ``owner/name@N`` (version N)."""
    owner, _, rest = spec.rpartition("/")
    name, _, number = rest.partition("@")
    owner = owner or Player.SYSTEM_USERNAME
    versions = BotVersion.objects.select_related("bot__owner").filter(
        bot__game=game, bot__owner__username=owner, bot__name=name)
    if number:
        if not re.fullmatch(r"[0-9]{1,9}", number):
            raise BotNotFound(f"bad version in {spec!r}: expected owner/name@N")
        version = versions.filter(number=int(number)).first()
    else:
        version = versions.filter(status=BotVersion.Status.VALID).order_by("-number").first()
    if version is None:
        raise BotNotFound(f"no {'such' if number else 'valid'} version of bot {spec!r} for {game}")
    return version


def bots_for_game(game: str) -> QuerySet[Bot]:
    return Bot.objects.filter(game=game).select_related("owner").prefetch_related("versions")


def versions_of_owner(owner: Player) -> QuerySet[BotVersion]:
    return BotVersion.objects.filter(bot__owner=owner).select_related("bot").order_by("-created_at")


def regression_results(versions, viewer) -> list[dict]:
    """The regression gate's results of ``versions`` that have one, newest first, for their owner only
    (like the rest of validation): each {"version", "result"}. Empty for anyone else."""
    rows = [{"version": v, "result": v.regression} for v in versions
            if v.regression and viewer is not None and viewer.is_authenticated and viewer.pk == v.bot.owner_id]
    return sorted(rows, key=lambda row: -row["version"].number)
