"""Writes on bots: registering the built-in bots, uploading new versions, validating them."""
from __future__ import annotations

import hashlib
import re
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from bots.models import Bot, BotVersion
from engines.games import available_games, builtin_bots
from engines.sandbox.package import DEFAULT_LIMITS, PackageError, check_package
from players.services import system_player

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{1,63}$")


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


def upload_version(*, owner, game: str, name: str, filename: str, data: bytes, description: str = "",
                   accepts_challenges: bool | None = None) -> BotVersion:
    """Check an upload and store it as the next immutable version of the owner's bot ``name``.

    ``accepts_challenges`` (None: unchanged; a new bot starts with False) lets other players enter the
    bot in their friendly tournaments.

    The version starts pending; its validation matches are enqueued once the transaction commits.
    A refused upload raises ``UploadError`` and stores nothing (no row, no file).
    """
    if game not in available_games():
        raise UploadError(f"unknown game {game!r}; games: {', '.join(available_games())}")
    if owner.is_system:
        raise UploadError("the system player cannot upload bots")
    if not NAME_RE.match(name or ""):
        raise UploadError("a bot name is 2-64 characters: lower-case letters, digits, - and _, starting with a "
                          "letter or digit")
    try:
        package = check_package(data, filename, upload_limits())
    except PackageError as exc:
        raise UploadError(str(exc)) from None
    suffix = ".py" if filename.lower().endswith(".py") else ".zip"
    sha = hashlib.sha256(data).hexdigest()
    stored_name = None
    try:
        with transaction.atomic():
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
            create_validation_matches(version)
            transaction.on_commit(lambda: enqueue_validation(version.pk))
    except BaseException:
        if stored_name:
            BotVersion.package.field.storage.delete(stored_name)
        raise
    return version


def update_bot(bot: Bot, *, description: str | None = None, accepts_challenges: bool | None = None) -> Bot:
    """Change what an owner may change on a bot (None: leave as is)."""
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


def create_validation_matches(version: BotVersion) -> None:
    """Seeded matches of the new version against the built-in random bot (not rated)."""
    from tournaments.models import Match
    from tournaments.services import create_match, smallest_table

    opponents = smallest_table(version.bot.game) - 1
    random_version = next(v for v in register_builtin_bots([version.bot.game]) if v.builtin_name == "random")
    for i in range(settings.ARENA["VALIDATION_MATCHES"]):
        seats = [random_version] * opponents
        seats.insert(i % (opponents + 1), version)
        create_match(game=version.bot.game, bot_versions=seats, seed=version.pk * 1000 + i,
                     purpose=Match.Purpose.VALIDATION)


def enqueue_validation(version_id: int) -> None:
    from bots.tasks import validate_version_task

    validate_version_task.delay(version_id)


def validate_version(version_id: int) -> str:
    """Run the version's validation matches (idempotent) and set its status from how it behaved."""
    from tournaments.models import Match
    from tournaments.services import run_match

    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version.status
    matches = list(Match.objects.filter(purpose=Match.Purpose.VALIDATION, seats__bot_version=version)
                   .distinct().order_by("id"))
    for match in matches:
        run_match(match.pk)
    problems, errors = [], []
    for match in Match.objects.filter(pk__in=[m.pk for m in matches]):
        if match.status == Match.Status.FAILED:
            errors.append(f"match {match.pk}: {match.error.strip().splitlines()[-1] if match.error else 'failed'}")
        elif match.status != Match.Status.FINISHED:
            errors.append(f"match {match.pk} is still {match.status}")
        for seat in match.seats.filter(bot_version=version):
            for fault in seat.fault_log:
                problems.append(f"match {match.pk}, move {fault['move']}: {fault['kind']}: {fault['detail']}")
            if seat.fault_log and seat.stderr_tail:
                problems.append(f"stderr (tail):\n{seat.stderr_tail[-1500:]}")
    if errors:  # the platform could not run the matches (e.g. no sandbox on this worker): try again later
        BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(
            status_detail="validation could not run yet: " + "; ".join(errors)[:2000])
        return "pending"
    if problems:
        status, detail = BotVersion.Status.INVALID, "\n".join(problems)[:5000]
    else:
        status, detail = BotVersion.Status.VALID, f"played {len(matches)} validation match(es) without a fault"
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(status=status,
                                                                                         status_detail=detail)
    return status


def reconcile_validations(now=None) -> list[int]:
    """Enqueue again the validation of versions pending for long (a lost message, a dead worker)."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ARENA["REQUEUE_AFTER_SECONDS"])
    ids = list(BotVersion.objects.filter(status=BotVersion.Status.PENDING, kind=BotVersion.Kind.UPLOAD,
                                         created_at__lt=stale).values_list("pk", flat=True))
    for version_id in ids:
        enqueue_validation(version_id)
    return ids
