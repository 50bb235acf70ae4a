"""Validation of uploaded versions: seeded matches against the built-in random bot, in the sandbox.

The matches' side owns validation (the bots app depends on nothing above it): a new upload sends
``bots.signals.version_uploaded`` and the receiver here creates its matches in the same transaction.
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots.models import BotVersion
from bots.services import register_builtin_bots
from tournaments.doorbell import ring_validation
from tournaments.models import Match
from tournaments.services import create_match, run_match, smallest_table


def on_version_uploaded(sender, version: BotVersion, **kwargs) -> None:
    """Receiver of ``version_uploaded``: validation matches now, enqueued once the upload commits."""
    create_validation_matches(version)
    transaction.on_commit(lambda: enqueue_validation(version.pk))


def create_validation_matches(version: BotVersion) -> None:
    """Seeded matches of the new version against the built-in random bot (not rated)."""
    opponents = smallest_table(version.bot.game) - 1
    random_version = next(v for v in register_builtin_bots([version.bot.game]) if v.builtin_name == "random")
    for i in range(settings.ARENA["VALIDATION_MATCHES"]):
        seats = [random_version] * opponents
        seats.insert(i % (opponents + 1), version)
        create_match(game=version.bot.game, bot_versions=seats, seed=version.pk * 1000 + i,
                     purpose=Match.Purpose.VALIDATION)


def enqueue_validation(version_id: int) -> None:
    ring_validation(version_id)


def validate_version(version_id: int) -> str:
    """Run the version's validation matches (idempotent) and set its status from how it behaved."""
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
