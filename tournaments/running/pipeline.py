"""The match pipeline: claim a match with a lease, play it, then store and rate it once, in one transaction.

Each match is run by an idempotent task that takes its id (``run_matches``: a doorbell names one match, or up
to ten of a large batch; docs/architecture.md, "A match's path" and "What one match costs the database",
counts its statements and round trips): the worker claims the match with a conditional update
(queued -> running, with a lease token; the lease is short and renewed while the match plays), plays it, and
stores the result and the TrueSkill update in one transaction (running -> finished) under the game's rating
lock. A doorbell's next match is claimed in that transaction. Only the holder of the lease stores a result,
and a match is rated exactly once: a second delivery finds nothing to claim, a retry after a lost reply
nothing to write. The reconciler frees the matches of dead
workers (expired leases) and rings again for matches whose message was lost.

Imports flow one way: the pipeline builds on the tournament lifecycle (tournaments.services: it advances a
tournament after each match), which never imports it."""
from __future__ import annotations

import logging
import socket
import time
import traceback
import uuid
from datetime import timedelta
from functools import cache
from typing import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from infra.bulk import Statement, run_statements, table, update_rows, writers_in_turn
from bots.models import Bot as BotRow, BotVersion
from engines.bots import Bot
from engines.players import make_bot
from engines.games import get_game
from engines.logcodec import encode_checked, encode_log
from engines.match import MatchLimits, play_match
from ratings.services import apply_rating, rating_turn, read_ratings, take_rating_turn
from tournaments.running import doorbell
from tournaments.running import leases
from tournaments.models import Match, MatchLog, MatchSeat, Tournament
from tournaments.services import advance_after_match, advance_tournament, enqueue_matches

log = logging.getLogger(__name__)


def _claim_statement(match_id: int, worker: str, token: str) -> Statement:
    """The conditional update that takes a queued match (or one whose lease expired) with a lease token.

    It takes again a match this token holds already, so a claim retried after a lost reply succeeds."""
    now_sql, now_params, until_sql, until_params = leases.lease_sql()
    running = Match.Status.RUNNING
    return (
        f"UPDATE {table(Match)} SET status = %s, lease_token = %s, lease_until = {until_sql}, "
        f"attempts = attempts + 1, started_at = %s, worker = %s "
        f"WHERE id = %s AND (status = %s OR (status = %s AND (lease_until < {now_sql} OR lease_token = %s)))",
        [running, token, *until_params, _datetime(timezone.now()), worker[:200], match_id, Match.Status.QUEUED,
         running, *now_params, token])


def _datetime(value):
    return Match._meta.get_field("finished_at").get_db_prep_value(value, connection)


def claim_match(match_id: int, worker: str = "") -> str | None:
    """Take a queued match (or one whose lease expired) for this worker; the lease token, or None.

    The lease is short (MATCH_LEASE_SECONDS); run_match renews it while the match plays."""
    token = str(uuid.uuid4())
    return token if run_statements([_claim_statement(match_id, worker, token)], flush=False)[0].rowcount else None


#: A claimed match as the worker plays it: its lease token, the match (with its tournament) and its seats.
Claimed = tuple[str, Match, list[MatchSeat]]


class Claim:
    """The claim of a match with the read of what the worker needs to play it. Sent alone, or (a doorbell's
    next match) with the statements that store the match before it: one write turn and one round trip fewer
    a match. Its token is drawn once, so a store retried after a lost reply claims the match again."""

    def __init__(self, match_id: int, worker: str):
        self.match_id, self.worker, self.token = match_id, worker, str(uuid.uuid4())

    def statements(self) -> list[Statement]:
        """The claim, then the read of what the worker needs to play the match."""
        return [_claim_statement(self.match_id, self.worker, self.token),
                (_load_sql(connection.vendor), [self.match_id])]

    def result(self, claimed, loaded) -> Claimed | None:
        """The claimed match from the two statements' results; None if it was not ours to claim."""
        return _loaded(self.match_id, self.token, claimed, loaded)


def _claim_and_load(match_id: int, worker: str) -> Claimed | None:
    """Claim a match and read it with its tournament and its seats' versions, in one round trip
    (PostgreSQL); None if it was not ours to claim."""
    claim = Claim(match_id, worker)
    with writers_in_turn():
        return claim.result(*run_statements(claim.statements(), flush=False))


def _loaded(match_id: int, token: str, claimed, loaded) -> Claimed | None:
    """The match and its seats as model objects (unsaved, read from the load's rows), if the claim took it."""
    if not claimed.rowcount:
        return None
    (game, seed, options, purpose, tournament_id, rated, fmt, *_), = loaded.rows[:1]
    match = Match(id=match_id, game=game, seed=seed, purpose=purpose, tournament_id=tournament_id,
                  options=Match._meta.get_field("options").from_db_value(options, None, connection),
                  status=Match.Status.RUNNING, lease_token=token)
    if tournament_id is not None:  # what the pipeline reads of it: rated, and how it advances
        match.tournament = Tournament(id=tournament_id, game=game, rated=rated, format=fmt)
    seats = [MatchSeat(id=pk, match=match, seat=seat, bot_version=BotVersion(
                 id=version, kind=kind, builtin_name=builtin, package=package, number=number,
                 bot=BotRow(name=name, owner=get_user_model()(username=owner))))
             for *_, pk, seat, version, kind, builtin, package, number, name, owner in loaded.rows if pk is not None]
    return token, match, seats


@cache
def _load_sql(vendor: str) -> str:
    """The match, its tournament and its seats' versions, bots and owners (what the worker needs to play it)."""
    return (
        "SELECT m.game, m.seed, m.options, m.purpose, m.tournament_id, t.rated, t.format, s.id, s.seat, v.id, "
        f"v.kind, v.builtin_name, v.package, v.number, b.name, u.username FROM {table(Match)} m "
        f"LEFT JOIN {table(Tournament)} t ON t.id = m.tournament_id LEFT JOIN {table(MatchSeat)} s ON s.match_id = m.id "
        f"LEFT JOIN {table(BotVersion)} v ON v.id = s.bot_version_id LEFT JOIN {table(BotRow)} b ON b.id = v.bot_id "
        f"LEFT JOIN {table(get_user_model())} u ON u.id = b.owner_id WHERE m.id = %s ORDER BY s.seat")


def build_bot(version: BotVersion, game: str, seed: int) -> Bot:
    """The runnable bot of a version: built-ins in-process, uploads in the sandbox."""
    if version.kind == BotVersion.Kind.BUILTIN:
        return make_bot(version.builtin_name, game, seed=seed)
    # Checked (and compiled) once at upload: at a match start the stored package is only unpacked.
    return make_bot(version.package.path, game, seed=seed, trusted=settings.ARENA["TRUSTED_BOTS"],
                    move_ms=settings.ARENA["MOVE_MS"], validated=True)


def run_match(match_id: int, worker: str | None = None) -> str:
    """Claim, play, store and rate one match. Safe to call any number of times for the same id:
    only the claim holder stores a result, and a match is rated once. Returns what happened."""
    worker = worker or socket.gethostname()
    return _play(_claim_and_load(match_id, worker), match_id)[0]


def _play(claimed: Claimed | None, match_id: int, claim_next: Callable[[], Claim | None] = lambda: None,
          ) -> tuple[str, Claimed | None]:
    """Play a claimed match, store and rate it, advance its tournament; what happened, and the next match if
    ``claim_next`` (asked when the match is about to be stored) gave one to claim in the store's transaction."""
    if claimed is None:
        return "not claimed", None
    token, match, seats = claimed
    following: Claimed | None = None
    with leases.LeaseKeeper(match_id, token) as keeper:
        bots: list[Bot] = []
        try:
            for s in seats:
                bots.append(build_bot(s.bot_version, match.game, seed=match.seed * 10 + s.seat))
            limits = MatchLimits(max_faults=settings.ARENA["MAX_FAULTS"], match_ms=settings.ARENA["MATCH_MS"])
            result = play_match(match.game, bots, match.seed, match.options,
                                seat_names=[s.bot_version.label for s in seats], limits=limits,
                                on_decision=keeper.check)
        except leases.LeaseLost:  # taken over or handed back: the match is another worker's now
            for bot in bots:
                bot.close()
            return ("handed back" if keeper.handed_back else "lease lost"), None
        except Exception:  # an engine or set-up error: keep the match, with its error, for a human
            for bot in bots:
                bot.close()
            return _failed(match, token), None
        log_data = result.to_dict()
        blob = encode_log(result)  # outside the transaction: the game lock is held only to write
        then = claim_next()
        # A database away for a while (restart, failover, link cut) delays the store; it never fails
        # the match. The heartbeat keeps the lease meanwhile.
        try:
            stored, following = leases.retry_while_leased(
                keeper, lambda: _store(match, token, log_data, seats, blob, then), ("lease lost", None))
        except leases.CONNECTION_ERRORS:
            raise
        except Exception:  # a result the database refuses (nothing of it was written): played again, it would
            return _failed(match, token), None  # be refused again, so it is kept failed, with its error
        if stored == "lease lost":
            log.warning("match %s: lease lost before storing; the worker that took it over stores it", match_id)
    if stored == "finished":
        try:
            advance_after_match(match, following[1] if following else None)
        except leases.CONNECTION_ERRORS:  # the reconciler advances idle tournaments
            log.warning("match %s stored; its tournament advances at the next reconcile", match_id)
    return stored, following


#: A worker holding a doorbell of several matches rings again for the rest once it has held it this long,
#: so a slow match delays the others for at most its own length.
DOORBELL_SECONDS = 1.0


def run_matches(match_ids: list[int], worker: str | None = None) -> list[str]:
    """Play the matches one doorbell names, in turn; what happened to each ("rung again": put back).

    Each match but the first is claimed in the transaction that stores the one before it, if the worker
    is still in time then. Those not yet claimed are rung again (each then its own doorbell, at the back of
    the queue) when the worker is asked to stop, or once it has held the doorbell for ``DOORBELL_SECONDS``.
    While a worker holds them they are in no queue, so they are marked as rung when it takes them: the
    reconciler, which rings again queued matches it cannot see waiting, leaves them alone for
    ``RERING_AFTER_SECONDS``."""
    worker = worker or socket.gethostname()
    if len(match_ids) > 1:
        with writers_in_turn():  # SQLite: queue for the write with the pipeline's writers, not in its polls
            doorbell.touch_matches(match_ids[1:])
    taken = time.monotonic()

    def in_time() -> bool:
        return not leases.stop_requested() and time.monotonic() - taken <= DOORBELL_SECONDS

    outcomes: list[str] = []
    claimed: Claimed | None = None  # the next match, when the store of the one before claimed it
    for done, match_id in enumerate(match_ids):
        if claimed is None:
            if leases.stop_requested() or (done and not in_time()):
                rest = match_ids[done:]
                enqueue_matches(list(Match.objects.filter(pk__in=rest, status=Match.Status.QUEUED)
                                     .values_list("pk", flat=True)))
                return outcomes + ["rung again"] * len(rest)
            claimed = _claim_and_load(match_id, worker)
        following = match_ids[done + 1] if done + 1 < len(match_ids) else None
        outcome, claimed = _play(claimed, match_id,
                                 lambda: Claim(following, worker) if following is not None and in_time() else None)
        outcomes.append(outcome)
    return outcomes


def _failed(match: Match, token: str) -> str:
    """Mark a match this worker holds failed, with the exception being handled as its error (for a human), and
    advance its tournament."""
    error = traceback.format_exc()
    log.exception("match %s failed", match.pk)
    Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, lease_token=token).update(
        status=Match.Status.FAILED, error=error[-8000:], finished_at=timezone.now())
    advance_after_match(match)
    return "failed"


def rated_ruleset(match: Match, seats: int | None = None) -> str | None:
    """The ruleset whose public ratings a match moves, or None: only the matches of a rated tournament,
    played under one of the game's rated rulesets, are rated (friendly and validation matches never).
    ``seats``: the match's number of seats, when the caller has read them."""
    if match.purpose != Match.Purpose.TOURNAMENT or match.tournament_id is None or not match.tournament.rated:
        return None
    return get_game(match.game).rated_preset(match.seats.count() if seats is None else seats, match.options)


def store_result(match: Match, token: str, log_data: dict) -> str:
    """Store a played match and, if it is rated, rate it, in one transaction, if this worker still holds
    the lease."""
    stored, _ = _store(match, token, log_data)
    if stored == "finished":
        advance_after_match(match)
    return stored


def save_match_log(match_id: int, log_data: dict) -> None:
    """Store (or replace) a match's log in its compact form; the match pipeline stores logs itself
    (``run_match``): this is for logs from elsewhere (imports, fixtures)."""
    MatchLog.objects.update_or_create(match_id=match_id, defaults={"data": encode_checked(log_data)})


def _store(match: Match, token: str, log_data: dict, seats: list[MatchSeat] | None = None,
           blob: bytes | None = None, then: Claim | None = None) -> tuple[str, Claimed | None]:
    """One transaction, a fixed number of statements in two round trips (PostgreSQL; tests/platform/
    test_pipeline.py counts them): the transaction's begin, the conditional store (which also marks the match
    rated: exactly once), the log, the seats in one update, then (rated only) the game's lock and rating turn
    and the ratings' read; then the rating writes (apply_rating) with the commit (unrated: the commit goes
    with the first).

    The store swaps the lease token for a token of this attempt, and every later write is conditional on
    it: so they are written only if the store was (a retry after a lost reply finds nothing to do). The
    game's lock is taken last and held to the commit, so it covers the rating writes only, and the order
    in which matches take it is the order in which they commit (finish) and are rated.

    ``then``: a doorbell's next match, claimed and read first in the same transaction and round trip
    (committed whether or not this store was ours). Returns what happened and that match, if claimed."""
    if seats is None:
        seats = list(match.seats.order_by("seat"))
    ruleset = rated_ruleset(match, len(seats))
    outcome = log_data["outcome"]
    forfeits = {int(k) for k in log_data.get("forfeits", {})}
    stderr = log_data.get("stderr", {})
    values, fault_logs = {}, {}
    for seat in seats:
        faults = [f for f in log_data["faults"] if f["seat"] == seat.seat]
        values[seat.seat] = {
            "rank": outcome["ranks"][seat.seat], "score": outcome["scores"][seat.seat], "faults": len(faults),
            "forfeited": seat.seat in forfeits,
            "stderr_tail": (stderr.get(str(seat.seat))
                            or next((f["stderr_tail"] for f in reversed(faults) if f.get("stderr_tail")), ""))}
        if faults:  # rare: a bot that faulted
            fault_logs[seat.pk] = [{k: f[k] for k in ("move", "kind", "detail")} for f in faults]
    if blob is None:
        blob = encode_checked(log_data)
    stored_by_us = str(uuid.uuid4())
    ours = (f"EXISTS (SELECT 1 FROM {table(Match)} WHERE id = %s AND lease_token = %s)", [match.pk, stored_by_us])
    fault_log = MatchSeat._meta.get_field("fault_log")
    statements = [
        (f"UPDATE {table(Match)} SET status = %s, lease_token = %s, num_moves = %s, finished_at = %s, error = '', "
         f"rated = %s, ruleset = %s WHERE id = %s AND status = %s AND lease_token = %s",
         [Match.Status.FINISHED, stored_by_us, len(log_data["moves"]), _datetime(timezone.now()), bool(ruleset),
          ruleset or "", match.pk, Match.Status.RUNNING, token]),
        (f"INSERT INTO {table(MatchLog)} (match_id, data) SELECT %s, %s WHERE {ours[0]}",
         [match.pk, MatchLog._meta.get_field("data").get_db_prep_value(blob, connection), *ours[1]]),
        update_rows(MatchSeat, "seat", values, where={"match": match.pk}, condition=ours),
        *[(f"UPDATE {table(MatchSeat)} SET fault_log = %s WHERE id = %s AND {ours[0]}",
           [fault_log.get_db_prep_save(log, connection), pk, *ours[1]]) for pk, log in fault_logs.items()],
    ]
    rating = [(s.bot_version_id, values[s.seat]["rank"]) for s in seats]
    turn_at = len(statements)
    if ruleset:
        statements += rating_turn(match.game, ours) + read_ratings(ruleset, [version for version, _ in rating])
    # The next match's claim goes first: waiting for its row (a duplicate doorbell's worker storing it), this
    # transaction holds no other lock yet, so no two transactions wait for each other.
    claim = then.statements() if then else []
    with writers_in_turn(), transaction.atomic():
        # Unrated, these statements are the whole transaction: its commit goes with them (PostgreSQL).
        results = run_statements(claim + statements, flush=False, commit=not ruleset)
        following = then.result(*results[:2]) if then else None
        results = results[len(claim):]
        if not results[0].rowcount:  # another worker took the match over; its result counts (nothing was written)
            return "lease lost", following
        if ruleset:  # the rating writes end the transaction, its commit sent with them
            turn, number, *read = results[turn_at:]
            if turn.rowcount:
                apply_rating(number.rows[0][0], match.pk, match.game, ruleset, rating, read=read, commit=True)
            else:  # the game's first rated match: no lock row yet, so nothing was locked when the ratings were read
                apply_rating(take_rating_turn(match.game), match.pk, match.game, ruleset, rating, commit=True)
    return "finished", following


def reconcile_matches() -> list[int]:
    """Find matches that would otherwise be lost and enqueue them again; returns their ids.

    - running, but the lease expired (not renewed for MATCH_LEASE_SECONDS): the worker died mid-match (after
      MAX_MATCH_ATTEMPTS claims, the match is marked failed instead: one that kills every worker playing it);
    - queued, rung more than RERING_AFTER_SECONDS ago (or never) and not waiting in the broker's queue:
      the message was lost (an empty broker restart, a worker killed between receiving and claiming,
      a message left unacknowledged by a killed worker). A match still waiting in the queue is left
      alone, so a long backlog gets no duplicates. Brokers whose queue cannot be read fall back to
      REQUEUE_AFTER_SECONDS.
    Times are the database's clock.
    """
    try:
        waiting = doorbell.waiting_match_ids()  # read before the database: a match rung meanwhile is not "lost"
    except Exception as exc:  # the broker is away: expired leases are still freed
        log.warning("reconciler cannot read the broker's queue: %s", exc)
        waiting = None
    expired, given_up = [], []
    for pk, attempts in Match.objects.filter(status=Match.Status.RUNNING, lease_until__lt=Now()).values_list(
            "pk", "attempts"):
        (given_up if attempts >= settings.ARENA["MAX_MATCH_ATTEMPTS"] else expired).append(pk)
    if given_up:
        log.error("reconciler gives up matches %s: their leases expired %d times", given_up,
                  settings.ARENA["MAX_MATCH_ATTEMPTS"])
        Match.objects.filter(pk__in=given_up, status=Match.Status.RUNNING, lease_until__lt=Now()).update(
            status=Match.Status.FAILED, lease_token="", finished_at=Now(),
            error=f"given up: its worker stopped renewing its lease in each of its {settings.ARENA['MAX_MATCH_ATTEMPTS']} "
                  "attempts (a worker killed or stalled while playing it, each time)")
    if expired:
        Match.objects.filter(pk__in=expired, status=Match.Status.RUNNING, lease_until__lt=Now()).update(
            status=Match.Status.QUEUED, lease_token="")
    after = settings.ARENA["RERING_AFTER_SECONDS"] if waiting is not None else settings.ARENA["REQUEUE_AFTER_SECONDS"]
    lost = set(Match.objects.filter(status=Match.Status.QUEUED, purpose=Match.Purpose.TOURNAMENT)
               .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=Now() - timedelta(seconds=after)))
               .values_list("pk", flat=True))
    lost -= waiting or set()
    ids = sorted(set(expired) | lost)
    if ids:
        log.warning("reconciler re-enqueues matches %s", ids)
        enqueue_matches(ids)
    # A worker that died between storing a match and advancing its tournament left it idle.
    idle = Tournament.objects.filter(status=Tournament.Status.RUNNING).exclude(
        matches__status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    for tournament_id in idle.values_list("pk", flat=True):
        advance_tournament(tournament_id)
    return ids
