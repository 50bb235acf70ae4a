"""Writes on tournaments and matches: creating, enqueuing, running (claim, play, store, rate)."""
from __future__ import annotations

import logging
import socket
import traceback
import uuid
from datetime import timedelta
from typing import Any, Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from bots.models import BotVersion
from engines.bots import Bot, make_bot
from engines.core import BadOptions
from engines.games import get_game
from engines.match import MatchLimits, play_match
from ratings.services import lock_game, rate_match
from tournaments import formats
from tournaments.models import Entry, Match, MatchSeat, Tournament

log = logging.getLogger(__name__)


class TournamentError(ValueError):
    """A tournament that cannot be created as asked (the message says why)."""


def _arena(key: str) -> Any:
    return settings.ARENA[key]


@transaction.atomic
def create_tournament(*, name: str, game: str, bot_versions: Sequence[BotVersion], seats: int,
                      games_per_pairing: int = 1, options: dict | None = None, seed: int = 0,
                      format: str = Tournament.Format.ROUND_ROBIN, created_by=None) -> Tournament:
    """Create a tournament, expand it into matches and enqueue them once the transaction commits."""
    try:
        options = checked_options(game, seats, options)
    except BadOptions as exc:
        raise TournamentError(str(exc)) from None
    if format != Tournament.Format.ROUND_ROBIN:
        raise TournamentError(f"unknown tournament format {format!r}; formats: round_robin")
    ids = [v.pk for v in bot_versions]
    if len(set(ids)) != len(ids):
        raise TournamentError("a bot version may enter a tournament only once")
    for version in bot_versions:
        if version.bot.game != game:
            raise TournamentError(f"{version.label} plays {version.bot.game}, not {game}")
        if not version.playable:
            raise TournamentError(f"{version.label} is {version.get_status_display()}, not valid: it cannot enter")
    try:
        orders = formats.round_robin(len(bot_versions), seats, games_per_pairing)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    tournament = Tournament.objects.create(
        name=name, game=game, format=format, seats_per_match=seats, games_per_pairing=games_per_pairing,
        options=options, seed=seed, created_by=created_by)
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in bot_versions])
    matches = Match.objects.bulk_create([
        Match(tournament=tournament, game=game, options=options, seed=seed * 1_000_003 + i, round=1)
        for i in range(len(orders))
    ])
    if matches and matches[0].pk is None:  # backends that do not return ids from bulk_create
        matches = list(tournament.matches.order_by("id"))
    MatchSeat.objects.bulk_create([
        MatchSeat(match=m, seat=s, bot_version=bot_versions[i])
        for m, order in zip(matches, orders) for s, i in enumerate(order)
    ])
    match_ids = [m.pk for m in matches]
    transaction.on_commit(lambda: enqueue_matches(match_ids))
    return tournament


def checked_options(game: str, seats: int, options: dict | None) -> dict:
    """The full options of a game for ``seats`` players; ``BadOptions`` if the engine would refuse them.

    A trial set-up catches what only the game knows (e.g. a player count allowed only with an option).
    """
    engine = get_game(game)
    engine.check_players(seats)
    options = engine.options(options)
    engine.setup(seats, 0, options)
    return options


def smallest_table(game: str) -> int:
    """The fewest seats (at least 2) the game can be set up with on its default options."""
    engine = get_game(game)
    for seats in range(max(2, engine.min_players), engine.max_players + 1):
        try:
            checked_options(game, seats, None)
        except BadOptions:
            continue
        return seats
    raise BadOptions(f"{game} cannot be set up with its default options")


def create_match(*, game: str, bot_versions: Sequence[BotVersion], seed: int, options: dict | None = None,
                 purpose: str = Match.Purpose.TOURNAMENT, tournament: Tournament | None = None) -> Match:
    """One stand-alone match (validation matches use this); not enqueued."""
    options = checked_options(game, len(bot_versions), options)
    match = Match.objects.create(game=game, options=options, seed=seed, purpose=purpose,
                                 tournament=tournament)
    MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=s, bot_version=v) for s, v in enumerate(bot_versions)])
    return match


def enqueue_matches(match_ids: Sequence[int]) -> None:
    """Ring the doorbell for each match (the database row is the truth; duplicates are harmless)."""
    from tournaments.tasks import run_match_task

    for match_id in match_ids:
        Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(enqueued_at=timezone.now())
        run_match_task.delay(match_id)


def claim_match(match_id: int, worker: str = "") -> str | None:
    """Take a queued match (or one whose lease expired) for this worker; the lease token, or None."""
    now = timezone.now()
    token = str(uuid.uuid4())
    claimed = (
        Match.objects.filter(pk=match_id)
        .filter(Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, lease_until__lt=now))
        .update(status=Match.Status.RUNNING, lease_token=token, lease_until=now + lease_duration(match_id),
                attempts=F("attempts") + 1, started_at=now, worker=worker[:200])
    )
    return token if claimed else None


def lease_duration(match_id: int) -> timedelta:
    """Long enough for the slowest legal match: every seat may spend its whole time bank."""
    seats = MatchSeat.objects.filter(match_id=match_id).count()
    return timedelta(seconds=max(_arena("MATCH_LEASE_SECONDS"), seats * _arena("MATCH_MS") / 1000 + 60))


def build_bot(version: BotVersion, game: str, seed: int) -> Bot:
    """The runnable bot of a version: built-ins in-process, uploads in the sandbox."""
    if version.kind == BotVersion.Kind.BUILTIN:
        return make_bot(version.builtin_name, game, seed=seed)
    return make_bot(version.package.path, game, seed=seed, trusted=_arena("TRUSTED_BOTS"),
                    move_ms=_arena("MOVE_MS"))


def run_match(match_id: int, worker: str | None = None) -> str:
    """Claim, play, store and rate one match. Safe to call any number of times for the same id:
    only the claim holder stores a result, and a match is rated once. Returns what happened."""
    worker = worker or socket.gethostname()
    token = claim_match(match_id, worker)
    if token is None:
        return "not claimed"
    match = Match.objects.get(pk=match_id)
    seats = list(match.seats.select_related("bot_version__bot__owner").order_by("seat"))
    bots: list[Bot] = []
    try:
        for s in seats:
            bots.append(build_bot(s.bot_version, match.game, seed=match.seed * 10 + s.seat))
        limits = MatchLimits(max_faults=_arena("MAX_FAULTS"), match_ms=_arena("MATCH_MS"))
        result = play_match(match.game, bots, match.seed, match.options,
                            seat_names=[s.bot_version.label for s in seats], limits=limits)
    except Exception:  # an engine or set-up error: keep the match, with its error, for a human
        for bot in bots:
            bot.close()
        error = traceback.format_exc()
        log.exception("match %s failed", match_id)
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token).update(
            status=Match.Status.FAILED, error=error[-8000:], finished_at=timezone.now())
        _finish_tournament_if_done(match.tournament_id)
        return "failed"
    return store_result(match, token, result.to_dict())


def store_result(match: Match, token: str, log_data: dict) -> str:
    """Store a played match and rate it, in one transaction, if this worker still holds the lease."""
    outcome = log_data["outcome"]
    with transaction.atomic():
        if match.purpose == Match.Purpose.TOURNAMENT:
            lock_game(match.game)  # first: rating order = order in which matches finish
        stored = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, lease_token=token).update(
            status=Match.Status.FINISHED, log=log_data, num_moves=len(log_data["moves"]),
            finished_at=timezone.now(), error="")
        if not stored:
            return "lease lost"  # another worker took the match over; its result counts
        forfeits = {int(k) for k in log_data.get("forfeits", {})}
        for seat in match.seats.all():
            faults = [f for f in log_data["faults"] if f["seat"] == seat.seat]
            seat.rank = outcome["ranks"][seat.seat]
            seat.score = outcome["scores"][seat.seat]
            seat.faults = len(faults)
            seat.forfeited = seat.seat in forfeits
            seat.fault_log = [{k: f[k] for k in ("move", "kind", "detail")} for f in faults]
            seat.stderr_tail = (log_data.get("stderr", {}).get(str(seat.seat))
                                or next((f["stderr_tail"] for f in reversed(faults) if f.get("stderr_tail")), ""))
            seat.save(update_fields=["rank", "score", "faults", "forfeited", "fault_log", "stderr_tail"])
        if match.purpose == Match.Purpose.TOURNAMENT:
            rate_match(match)
    _finish_tournament_if_done(match.tournament_id)
    return "finished"


def _finish_tournament_if_done(tournament_id: int | None) -> None:
    if tournament_id is None:
        return
    open_matches = Match.objects.filter(tournament_id=tournament_id).exclude(
        status__in=[Match.Status.FINISHED, Match.Status.FAILED])
    if not open_matches.exists():
        Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
            status=Tournament.Status.FINISHED, finished_at=timezone.now())


def reconcile_matches(now=None) -> list[int]:
    """Find matches that would otherwise be lost and enqueue them again; returns their ids.

    - running, but the lease expired: the worker died mid-match; the match goes back to the queue;
    - queued, but never enqueued or enqueued long ago: the broker message was lost.
    """
    now = now or timezone.now()
    expired = list(Match.objects.filter(status=Match.Status.RUNNING, lease_until__lt=now).values_list("pk", flat=True))
    if expired:
        Match.objects.filter(pk__in=expired, status=Match.Status.RUNNING, lease_until__lt=now).update(
            status=Match.Status.QUEUED, lease_token="")
    stale = now - timedelta(seconds=_arena("REQUEUE_AFTER_SECONDS"))
    lost = list(Match.objects.filter(status=Match.Status.QUEUED, purpose=Match.Purpose.TOURNAMENT)
                .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=stale)).values_list("pk", flat=True))
    ids = sorted(set(expired) | set(lost))
    if ids:
        log.warning("reconciler re-enqueues matches %s", ids)
        enqueue_matches(ids)
    return ids
