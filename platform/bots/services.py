"""Writes on bots: registering the built-in bots, uploading new versions (validation is the matches' side:
``tournaments.running.validation``)."""
from __future__ import annotations

import hashlib
import re

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max

from infra.text import control_character
from bots.models import Bot, BotVersion
from bots.signals import version_uploaded
from engines.games import available_games, builtin_bots
from engines.sandbox.package import DEFAULT_LIMITS, PackageError, check_package, upload_suffix
from players.services import system_player

NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{1,63}")  # the whole name (fullmatch: ``$`` lets a final newline by)


class UploadError(ValueError):
    """An upload refused; the message says what is wrong."""


@transaction.atomic
def register_builtin_bots(games: list[str] | None = None) -> list[BotVersion]:
    """Make sure every built-in bot of every available game has its (valid) version 1. Idempotent."""
    owner = system_player()
    versions = []
    for game in games or available_games():
        for name, cls in builtin_bots(game).items():
            doc = (cls.__doc__ or "").strip().splitlines()
            bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=name,
                                               defaults={"description": doc[0][:300] if doc else ""})
            version, _ = BotVersion.objects.get_or_create(
                bot=bot, number=1,
                defaults={"kind": BotVersion.Kind.BUILTIN, "builtin_name": name, "status": BotVersion.Status.VALID},
            )
            versions.append(version)
    return versions


def upload_limits():
    from dataclasses import replace

    return replace(DEFAULT_LIMITS, max_upload_bytes=settings.ARENA["UPLOAD_MAX_BYTES"])


def read_upload(upload) -> bytes:
    """The bytes of an uploaded file, refusing (without reading it all) one over the size limit."""
    limit = settings.ARENA["UPLOAD_MAX_BYTES"]
    if upload.size is not None and upload.size > limit:
        raise UploadError(f"{upload.name} is too big: {upload.size:,} bytes (the limit is {limit:,})")
    data = upload.read(limit + 1)
    if len(data) > limit:
        raise UploadError(f"{upload.name} is too big (the limit is {limit:,} bytes)")
    return data


def _check_pending(owner) -> None:
    """Bound the versions one player may have waiting for validation (each plays matches on the workers; staff
    are not bound): ``UploadError`` past ``ARENA["MAX_PENDING_VERSIONS_PER_USER"]``."""
    if owner.is_staff:
        return
    # One upload at a time per player, so two requests cannot both fit under the bound.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    limit = settings.ARENA["MAX_PENDING_VERSIONS_PER_USER"]
    pending = BotVersion.objects.filter(bot__owner=owner, status=BotVersion.Status.PENDING).count()
    if pending >= limit:
        raise UploadError(f"you have {pending} versions waiting for validation (the limit is {limit}): upload "
                          "more once they are judged")


def upload_version(*, owner, game: str, name: str, filename: str, data: bytes, description: str = "",
                   accepts_challenges: bool | None = None) -> BotVersion:
    """Check an upload and store it as the next immutable version of the owner's bot ``name``.

    ``accepts_challenges`` (None: unchanged; a new bot starts with False) lets other players enter the
    bot in their friendly tournaments.

    The version starts pending; ``version_uploaded`` is sent inside the transaction (the tournaments app
    creates the validation matches then and enqueues them once it commits).
    A refused upload raises ``UploadError`` and stores nothing (no row, no file).
    """
    if game not in available_games():
        raise UploadError(f"unknown game {game!r}; games: {', '.join(available_games())}")
    if owner.is_system:
        raise UploadError("the system player cannot upload bots")
    if not NAME_RE.fullmatch(name or ""):
        raise UploadError("a bot name is 2-64 characters: lower-case letters, digits, - and _, starting with a "
                          "letter or digit")
    check_description(description)
    try:
        package = check_package(data, filename, upload_limits())
    except PackageError as exc:
        raise UploadError(str(exc)) from None
    # .py, .js or .zip, as check_package read it (a file named just ".py" too): how a match reads it again
    suffix = upload_suffix(filename)
    sha = hashlib.sha256(data).hexdigest()
    stored_name = None
    try:
        with transaction.atomic():
            _check_pending(owner)
            bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=name,
                                               defaults={"description": description[:300]})
            bot = Bot.objects.select_for_update().get(pk=bot.pk)  # version numbers one at a time
            update_bot(bot, description=description or None, accepts_challenges=accepts_challenges)
            number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
            version = BotVersion(bot=bot, number=number, kind=BotVersion.Kind.UPLOAD, original_name=filename[:255],
                                 sha256=sha, size=len(data), status=BotVersion.Status.PENDING,
                                 status_detail=f"waiting for validation; entry {package.entry}")
            version.package.save(f"{owner.pk}/{bot.pk}/v{number}-{sha[:12]}{suffix}", ContentFile(data), save=False)
            stored_name = version.package.name
            version.save()
            version_uploaded.send(sender=BotVersion, version=version)
    except BaseException:
        if stored_name:
            BotVersion.package.field.storage.delete(stored_name)
        raise
    return version


def check_description(description: str | None) -> None:
    """``UploadError`` if a bot's description (shown to everyone) holds a control character: terminal escapes,
    line breaks, or bidi controls that show the text around them reversed. None or "" is fine."""
    bad = control_character(description)
    if bad is not None:
        raise UploadError(f"the description holds the control character {bad}: a description is one line of plain text")


def update_bot(bot: Bot, *, description: str | None = None, accepts_challenges: bool | None = None) -> Bot:
    """Change what an owner may change on a bot (None: leave as is); ``UploadError`` for a description
    ``check_description`` refuses."""
    check_description(description)
    changed = []
    if description is not None:
        bot.description = description[:300]
        changed.append("description")
    if accepts_challenges is not None:
        bot.accepts_challenges = accepts_challenges
        changed.append("accepts_challenges")
    if changed:
        bot.save(update_fields=changed)
    return bot
