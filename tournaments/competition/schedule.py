"""Scheduled tournaments: announced for a start time, with a registration window, once or recurring.

An organiser (staff or the platform for a rated one, any player for a friendly one) schedules a
tournament: its shape (game, format, seats, options) and ``starts_at``. Between
``registration_opens_at`` and ``registration_closes_at`` (at the latest the start) authors enter their
bots, one version each (a rated tournament: one bot per author, as at the ladder's tables), while the field
has room (``ARENA["MAX_MATCHES_PER_TOURNAMENT"]``), and may change the version or withdraw until the window
closes. A recurring schedule ("every Friday 18:00 UTC, Port Royal cup") keeps its next occurrence scheduled. The
scheduler (``run_scheduler``, in the beat process every ``ARENA["SCHEDULER_SECONDS"]``) creates the next
occurrences, starts what is due with the registered versions, and tops up the ladders. Every step is
idempotent: a start claims its row (scheduled -> started) under a row lock, so a second scheduler or
a restart never starts a tournament twice.
"""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone as dt_timezone
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from bots.models import Bot, BotVersion
from engines.core import BadOptions
from engines.games import available_games, get_game
from tournaments import services
from tournaments.competition import ladder
from tournaments.models import RecurringSchedule, Registration, ScheduledTournament, Tournament


#: An occurrence of a recurring schedule is named "<its name> YYYY-MM-DD": the recurring name's room in the
#: occurrence's name column.
OCCURRENCE_NAME_MAX = ScheduledTournament._meta.get_field("name").max_length - len(" 2000-01-01")


class ScheduleError(services.TournamentError):
    """A schedule or registration that cannot be made as asked (the message says why)."""


class NotAllowed(PermissionError):
    """The player may not do this (not the organiser, not the bot's owner)."""


SHAPE_FIELDS = ("name", "game", "format", "seats", "games_per_pairing", "rounds", "max_matches", "options", "duplicate",
                "rated")


def check_shape(*, organiser, game: str, format: str, seats: int, options: dict | None, rated: bool,
                max_matches: int = 0, duplicate: bool = False, games_per_pairing: int = 1, **_: Any) -> dict:
    """The full options of a tournament of this shape, or ``ScheduleError`` saying what is wrong.

    The same rules as ``services.create_tournament``: rated only by staff (or the platform) under a rated
    ruleset; a player's ladder needs ``max_matches``. The entrants are checked at the start."""
    if game not in available_games():
        raise ScheduleError(f"unknown game {game!r}; games: {', '.join(available_games())}")
    if format not in services.FORMATS:
        raise ScheduleError(f"unknown tournament format {format!r}; formats: {', '.join(services.FORMATS)}")
    try:
        options = services.checked_options(game, seats, options)
    except BadOptions as exc:
        raise ScheduleError(str(exc)) from None
    engine = get_game(game)
    trusted = organiser is None or organiser.is_staff
    if rated and not trusted:
        raise ScheduleError("only staff organise rated tournaments; leave rated off for a friendly one")
    if rated and not engine.rated_preset(seats, options):
        raise ScheduleError(f"a rated tournament plays one of the rated rulesets of {game} "
                            f"({', '.join(engine.rated_presets)}); these options and {seats} seats are not one")
    if format == Tournament.Format.LADDER and not max_matches and not trusted:
        raise ScheduleError("a ladder needs max_matches")
    if duplicate and (format != Tournament.Format.ROUND_ROBIN or games_per_pairing % seats):
        raise ScheduleError(f"duplicate series are played in a round robin, games per pairing a multiple of {seats}")
    return options


def _check_cap(organiser) -> None:
    """A player has at most ARENA["MAX_SCHEDULED_PER_USER"] scheduled tournaments and active recurring
    schedules still to come (staff and the platform are not bound)."""
    if organiser is None or organiser.is_staff:
        return
    limit = settings.ARENA["MAX_SCHEDULED_PER_USER"]
    coming = (ScheduledTournament.objects.filter(organiser=organiser, status=ScheduledTournament.Status.SCHEDULED,
                                                 recurring__isnull=True).count()
              + RecurringSchedule.objects.filter(organiser=organiser, active=True).count())
    if coming >= limit:
        raise ScheduleError(f"you have {coming} scheduled tournaments and recurring schedules still to come; the limit "
                            f"is {limit}: cancel one first")


def _shape(values: dict) -> dict:
    shape = {k: values[k] for k in SHAPE_FIELDS if k in values}
    shape.setdefault("format", Tournament.Format.ROUND_ROBIN)
    shape.setdefault("options", {})
    shape.setdefault("rated", False)
    shape.setdefault("duplicate", False)
    return shape


@transaction.atomic
def schedule_tournament(*, organiser, starts_at: datetime, registration_opens_at: datetime | None = None,
                        registration_closes_at: datetime | None = None, recurring: RecurringSchedule | None = None,
                        now: datetime | None = None, **shape: Any) -> ScheduledTournament:
    """Announce a tournament for ``starts_at``; registration is open from ``registration_opens_at`` (default:
    now) to ``registration_closes_at`` (default: the start). ``organiser`` None is the platform."""
    now = now or timezone.now()
    shape = _shape(shape)
    shape["options"] = check_shape(organiser=organiser, **shape)
    if recurring is None:
        _check_cap(organiser)
    if starts_at <= now:
        raise ScheduleError("the start must be in the future")
    opens = registration_opens_at or now
    closes = registration_closes_at or starts_at
    if not opens < closes <= starts_at:
        raise ScheduleError("registration must open before it closes, and close at the latest when the tournament starts")
    return ScheduledTournament.objects.create(organiser=organiser, starts_at=starts_at, registration_opens_at=opens,
                                              registration_closes_at=closes, recurring=recurring, **shape)


def next_start(recurring: RecurringSchedule, after: datetime) -> datetime:
    """The first start of a recurring schedule strictly after ``after`` (times are UTC)."""
    after = after.astimezone(dt_timezone.utc)
    at = datetime.combine(after.date(), recurring.time, tzinfo=dt_timezone.utc)
    if recurring.every == RecurringSchedule.Every.WEEK:
        at += timedelta(days=(recurring.weekday - at.weekday()) % 7)
        step = timedelta(days=7)
    else:
        step = timedelta(days=1)
    while at <= after:
        at += step
    return at


@transaction.atomic
def create_recurring(*, organiser, every: str, time: time, weekday: int | None = None,
                     registration_hours: int = 24, now: datetime | None = None, **shape: Any) -> RecurringSchedule:
    """A recurring schedule (every day, or every week on ``weekday``, 0 = Monday, at ``time`` UTC); its
    first occurrence is scheduled at once."""
    shape = _shape(shape)
    shape["options"] = check_shape(organiser=organiser, **shape)
    if every not in RecurringSchedule.Every.values:
        raise ScheduleError(f"every must be one of {', '.join(RecurringSchedule.Every.values)}")
    if every == RecurringSchedule.Every.WEEK and (weekday is None or not 0 <= weekday <= 6):
        raise ScheduleError("a weekly schedule needs a weekday, 0 (Monday) to 6 (Sunday)")
    if every == RecurringSchedule.Every.DAY:
        weekday = None
    if registration_hours < 1:
        raise ScheduleError("registration must be open at least one hour before each start")
    _check_cap(organiser)
    recurring = RecurringSchedule.objects.create(organiser=organiser, every=every, weekday=weekday, time=time,
                                                 registration_hours=registration_hours, **shape)
    schedule_occurrences(now=now)
    return recurring


def schedule_occurrences(now: datetime | None = None) -> list[ScheduledTournament]:
    """Give every active recurring schedule its next occurrence if it has none still to start (idempotent:
    one occurrence per schedule and start)."""
    now = now or timezone.now()
    created = []
    for recurring in RecurringSchedule.objects.filter(active=True):
        if recurring.occurrences.filter(status=ScheduledTournament.Status.SCHEDULED, starts_at__gt=now).exists():
            continue
        starts = next_start(recurring, now)
        opens = max(now, starts - timedelta(hours=recurring.registration_hours))
        shape = {k: getattr(recurring, k) for k in SHAPE_FIELDS}
        # the date always shows: a longer recurring name (an older one, or the admin's) is cut to fit the column
        shape["name"] = f"{recurring.name[:OCCURRENCE_NAME_MAX]} {starts:%Y-%m-%d}"
        occurrence, made = ScheduledTournament.objects.get_or_create(
            recurring=recurring, starts_at=starts,
            defaults={**shape, "organiser": recurring.organiser, "registration_opens_at": opens,
                      "registration_closes_at": starts})
        if made:
            created.append(occurrence)
    return created


def stop_recurring(recurring: RecurringSchedule, player) -> None:
    """No more occurrences (its organiser or staff); the one already scheduled stays (cancel it apart)."""
    _check_organiser(recurring, player)
    RecurringSchedule.objects.filter(pk=recurring.pk).update(active=False)


def _check_organiser(item, player) -> None:
    if not (player.is_staff or (item.organiser_id is not None and item.organiser_id == player.pk)):
        raise NotAllowed("only its organiser (or staff) may change it")


def registration_open(scheduled: ScheduledTournament, now: datetime | None = None) -> bool:
    now = now or timezone.now()
    return (scheduled.status == ScheduledTournament.Status.SCHEDULED
            and scheduled.registration_opens_at <= now < scheduled.registration_closes_at)


@transaction.atomic
def register(scheduled: ScheduledTournament, version: BotVersion, player, now: datetime | None = None) -> Registration:
    """Enter ``player``'s bot with ``version`` (or change the version it enters with) while registration is open."""
    scheduled = ScheduledTournament.objects.select_for_update().get(pk=scheduled.pk)
    bot = version.bot
    if bot.owner_id != player.pk:
        raise NotAllowed("authors enter their own bots")
    if not registration_open(scheduled, now):
        raise ScheduleError(f"registration is closed (open {scheduled.registration_opens_at:%Y-%m-%d %H:%M} to "
                            f"{scheduled.registration_closes_at:%Y-%m-%d %H:%M} UTC, while scheduled)")
    if bot.game != scheduled.game:
        raise ScheduleError(f"{version.label} plays {bot.game}, not {scheduled.game}")
    if not version.playable:
        raise ScheduleError(f"{version.label} is {version.get_status_display()}, not valid: it cannot enter")
    others = scheduled.registrations.exclude(bot=bot)
    if scheduled.rated and others.filter(bot__owner_id=bot.owner_id).exists():
        # Two bots of one author at a rated table could collude (one throwing its games to the other); the
        # ladder never seats them together either.
        raise ScheduleError("a rated tournament takes one bot per author: withdraw your other bot to enter this one")
    if not scheduled.registrations.filter(bot=bot).exists():
        _check_room(scheduled, others.count() + 1)
    registration, _ = Registration.objects.update_or_create(scheduled=scheduled, bot=bot,
                                                            defaults={"bot_version": version})
    return registration


def _check_room(scheduled: ScheduledTournament, entrants: int) -> None:
    """``ScheduleError`` (full) if ``entrants`` bots would make the tournament plan more matches than a
    tournament may: the registrants decide the field's size, and a round robin's matches grow as a power of it."""
    planned = services.planned_for(game=scheduled.game, format=scheduled.format, entrants=entrants,
                                   seats=scheduled.seats, games_per_pairing=scheduled.games_per_pairing,
                                   rounds=scheduled.rounds, max_matches=scheduled.max_matches)
    cap = settings.ARENA["MAX_MATCHES_PER_TOURNAMENT"]
    if planned > cap:
        raise ScheduleError(f"the tournament is full: with {entrants} bots it would play {planned:,} matches; "
                            f"the limit is {cap:,}")


def one_bot_per_author(registrations: list[Registration]) -> list[Registration]:
    """The registrations of a rated tournament's field: each author's first (the ones registered since
    ``register`` refused more are kept out, as it would have)."""
    seen: set[int] = set()
    kept = []
    for registration in registrations:
        if registration.bot.owner_id not in seen:
            seen.add(registration.bot.owner_id)
            kept.append(registration)
    return kept


@transaction.atomic
def withdraw(scheduled: ScheduledTournament, bot: Bot, player, now: datetime | None = None) -> bool:
    """Take a bot out again while registration is open; False if it was not entered."""
    scheduled = ScheduledTournament.objects.select_for_update().get(pk=scheduled.pk)
    if bot.owner_id != player.pk:
        raise NotAllowed("authors withdraw their own bots")
    if not registration_open(scheduled, now):
        raise ScheduleError("registration is closed: the entries are final")
    deleted, _ = Registration.objects.filter(scheduled=scheduled, bot=bot).delete()
    return bool(deleted)


def cancel(scheduled: ScheduledTournament, player) -> ScheduledTournament:
    """Cancel a tournament that has not started (its organiser or staff)."""
    _check_organiser(scheduled, player)
    updated = ScheduledTournament.objects.filter(pk=scheduled.pk, status=ScheduledTournament.Status.SCHEDULED).update(
        status=ScheduledTournament.Status.CANCELLED, note=f"cancelled by {player.username}")
    if not updated:
        raise ScheduleError(f"it is {scheduled.get_status_display()}: only a scheduled tournament can be cancelled")
    scheduled.refresh_from_db()
    return scheduled


def start_due(now: datetime | None = None) -> list[ScheduledTournament]:
    """Start every scheduled tournament whose time has come, with the registered versions (idempotent)."""
    now = now or timezone.now()
    started = []
    due = ScheduledTournament.objects.filter(status=ScheduledTournament.Status.SCHEDULED, starts_at__lte=now)
    for pk in due.values_list("pk", flat=True):
        scheduled = _start(pk)
        if scheduled is not None:
            started.append(scheduled)
    return started


@transaction.atomic
def _start(pk: int) -> ScheduledTournament | None:
    scheduled = ScheduledTournament.objects.select_for_update().filter(
        pk=pk, status=ScheduledTournament.Status.SCHEDULED).first()
    if scheduled is None:  # started or cancelled meanwhile
        return None
    registrations = [r for r in scheduled.registrations.select_related("bot", "bot_version__bot__owner")
                     if r.bot_version.playable]
    if scheduled.rated:
        registrations = one_bot_per_author(registrations)
    versions = [r.bot_version for r in registrations]
    try:
        with transaction.atomic():
            tournament = services.create_tournament(
                name=scheduled.name, game=scheduled.game, bot_versions=versions, seats=scheduled.seats,
                games_per_pairing=scheduled.games_per_pairing, options=scheduled.options, seed=scheduled.pk,
                format=scheduled.format, rounds=scheduled.rounds, max_matches=scheduled.max_matches,
                created_by=scheduled.organiser, rated=scheduled.rated, duplicate=scheduled.duplicate, registered=True)
    except services.TournamentError as exc:
        scheduled.status, scheduled.note = ScheduledTournament.Status.NOT_STARTED, str(exc)[:300]
        scheduled.save(update_fields=["status", "note"])
        return scheduled
    scheduled.status, scheduled.tournament = ScheduledTournament.Status.STARTED, tournament
    scheduled.save(update_fields=["status", "tournament"])
    return scheduled


def run_scheduler(now: datetime | None = None) -> dict[str, int]:
    """One turn of the scheduler: next occurrences, due starts, ladder top-ups. What it did, counted."""
    occurrences = schedule_occurrences(now)
    started = start_due(now)
    matches = ladder.tick()
    return {"occurrences": len(occurrences), "started": len(started), "ladder_matches": matches}


# --- reads ------------------------------------------------------------------------------------------
def upcoming(game: str | None = None) -> QuerySet[ScheduledTournament]:
    """Scheduled tournaments still to start, soonest first."""
    qs = ScheduledTournament.objects.filter(status=ScheduledTournament.Status.SCHEDULED).select_related("organiser")
    return qs.filter(game=game) if game else qs


def recent(limit: int = 20) -> list[ScheduledTournament]:
    """The last scheduled tournaments that started (or could not), latest first, with their tournaments."""
    return list(ScheduledTournament.objects.exclude(status=ScheduledTournament.Status.SCHEDULED)
                .select_related("tournament", "organiser").order_by("-starts_at")[:limit])


def entries_of(player, limit: int = 20) -> list:
    """The player's registrations, latest start first, with their scheduled tournament (and its result)."""
    return list(Registration.objects.filter(bot__owner=player)
                .select_related("scheduled__tournament", "bot_version__bot__owner")
                .order_by("-scheduled__starts_at")[:limit])
