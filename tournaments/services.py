"""Writes on tournaments and matches: creating, enqueuing, running (claim, play, store, rate)."""
from __future__ import annotations

import logging
import math
import socket
import traceback
import uuid
from datetime import timedelta
from functools import cache
from typing import Any, Callable, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from arena.bulk import Statement, run_statements, table, update_rows, writers_in_turn
from bots.models import Bot as BotRow, BotVersion
from engines.bots import Bot
from engines.players import make_bot
from engines.core import BadOptions
from engines.games import available_games, get_game
from engines.logcodec import encode_checked, encode_log
from engines.match import MatchLimits, play_match
from ratings.selectors import ratings_of
from ratings.services import apply_rating, rating_turn, read_ratings, take_rating_turn
from tournaments import doorbell, formats, leases
from tournaments.models import Entry, Match, MatchLog, MatchSeat, Tournament
from tournaments.selectors import matches_to_play, seeding_ruleset

log = logging.getLogger(__name__)


class TournamentError(ValueError):
    """A tournament that cannot be created as asked (the message says why)."""


def _arena(key: str) -> Any:
    return settings.ARENA[key]


FORMATS = [f.value for f in Tournament.Format]


@transaction.atomic
def create_tournament(*, name: str, game: str, bot_versions: Sequence[BotVersion], seats: int,
                      games_per_pairing: int = 1, options: dict | None = None, seed: int = 0,
                      format: str = Tournament.Format.ROUND_ROBIN, rounds: int = 0, max_matches: int = 0,
                      created_by=None, rated: bool = False, duplicate: bool = False,
                      registered: bool = False) -> Tournament:
    """Create a tournament and its first matches; they are enqueued once the transaction commits.

    round_robin: every ``seats``-group of bots plays ``games_per_pairing`` matches, all at once.
    swiss: ``rounds`` rounds (0: enough to separate the field); each round groups bots of similar standing.
    knockout: groups of ``seats`` bots; each group's best (most seats beaten over its matches) advances.
    ladder: continuous; the matchmaker keeps a few matches going, ``max_matches`` in all (0: until stopped).
    ``duplicate`` (round robin only): each group's ``games_per_pairing`` games (a multiple of ``seats``) are
    series of one game per seat rotation on one seed, so the luck of the deal cancels.

    ``created_by`` None is the platform itself (management commands, the demo). The platform and staff
    may organise ``rated`` tournaments (under one of the game's rated rulesets), enter any valid bot,
    and are not capped. A player's tournament is friendly (never rated): it may enter the player's own
    bots, the built-in bots and bots whose owners accept challenges, and it is bounded by
    ``ARENA["MAX_MATCHES_PER_TOURNAMENT"]`` and ``ARENA["MAX_QUEUED_MATCHES_PER_USER"]``.
    ``registered``: the bots' owners entered them themselves (a scheduled tournament), so they need not
    accept challenges.
    """
    if game not in available_games():
        raise TournamentError(f"unknown game {game!r}; games: {', '.join(available_games())}")
    try:
        options = checked_options(game, seats, options)
    except BadOptions as exc:
        raise TournamentError(str(exc)) from None
    if format not in FORMATS:
        raise TournamentError(f"unknown tournament format {format!r}; formats: {', '.join(FORMATS)}")
    engine = get_game(game)
    ruleset = engine.rated_preset(seats, options) or ""
    trusted = created_by is None or created_by.is_staff
    if rated and not trusted:
        raise TournamentError("only staff organise rated tournaments; leave rated off for a friendly one")
    if rated and not ruleset:
        raise TournamentError(f"a rated tournament plays one of the rated rulesets of {game} "
                              f"({', '.join(engine.rated_presets)}); these options and {seats} seats are not one")
    ids = [v.pk for v in bot_versions]
    if len(set(ids)) != len(ids):
        raise TournamentError("a bot version may enter a tournament only once")
    for version in bot_versions:
        if version.bot.game != game:
            raise TournamentError(f"{version.label} plays {version.bot.game}, not {game}")
        if not version.playable:
            raise TournamentError(f"{version.label} is {version.get_status_display()}, not valid: it cannot enter")
        if not trusted and not registered:
            _check_challenge(created_by, version)
    if len(bot_versions) < seats:
        raise TournamentError(f"a tournament of {seats}-seat matches needs at least {seats} bots, got {len(bot_versions)}")
    if games_per_pairing < 1:
        raise TournamentError("games per pairing must be at least 1")
    if duplicate and format != Tournament.Format.ROUND_ROBIN:
        raise TournamentError("duplicate series are played in a round robin only")
    if duplicate and games_per_pairing % seats:
        raise TournamentError(f"a duplicate round robin plays whole series of {seats} games (one per seat rotation): "
                              f"games per pairing must be a multiple of {seats}, not {games_per_pairing}")
    if format == Tournament.Format.SWISS and rounds == 0:
        rounds = max(1, math.ceil(math.log(len(bot_versions), seats)) + 1)
    planned = formats.planned_matches(format, len(bot_versions), seats, games_per_pairing, rounds, max_matches,
                                      smallest_table(game))
    if not trusted:
        _check_caps(created_by, format, planned)
    tournament = Tournament.objects.create(
        name=name, game=game, format=format, seats_per_match=seats, games_per_pairing=games_per_pairing,
        options=options, seed=seed, rounds=rounds, max_matches=max_matches, created_by=created_by,
        rated=rated, ruleset=ruleset, planned_matches=planned, duplicate=duplicate)
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in bot_versions])
    if duplicate:
        games = formats.duplicate_round_robin(len(bot_versions), seats, games_per_pairing // seats)
        _create_matches(tournament, [[ids[i] for i in order] for order, _ in games], round=1,
                        groups=[0] * len(games), series=[number for _, number in games])
    elif format == Tournament.Format.ROUND_ROBIN:
        orders = formats.round_robin(len(bot_versions), seats, games_per_pairing)
        _create_matches(tournament, [[ids[i] for i in order] for order in orders], round=1, groups=[0] * len(orders))
    else:
        _advance(tournament)
    return tournament


def _check_challenge(organiser, version: BotVersion) -> None:
    """A player's tournament enters their own bots, the built-in bots, and bots that accept challenges."""
    bot = version.bot
    if version.kind == BotVersion.Kind.BUILTIN or bot.owner_id == organiser.pk or bot.accepts_challenges:
        return
    raise TournamentError(f"{version.label} belongs to {bot.owner.username}, who does not accept challenges: "
                          "enter your own bots, the built-in bots, or bots whose owners accept challenges")


def _check_caps(organiser, format: str, planned: int) -> None:
    """Bound the work one player can queue: per tournament, and over all their running tournaments."""
    cap = _arena("MAX_MATCHES_PER_TOURNAMENT")
    if format == Tournament.Format.LADDER and not planned:
        raise TournamentError(f"a ladder needs max_matches (at most {cap:,})")
    if planned > cap:
        raise TournamentError(f"this tournament would play {planned:,} matches; the limit is {cap:,} per tournament")
    # One tournament creation at a time per player, so two requests cannot both fit under the cap.
    type(organiser).objects.select_for_update().filter(pk=organiser.pk).first()
    waiting = matches_to_play(organiser)
    limit = _arena("MAX_QUEUED_MATCHES_PER_USER")
    if waiting + planned > limit:
        raise TournamentError(f"your running tournaments still have {waiting:,} matches to play and this one would "
                              f"add {planned:,}; the limit is {limit:,}: wait for them, or stop one")


def _create_matches(tournament: Tournament, seatings: list[list[int]], round: int, groups: list[int],
                    series: list[int] | None = None, options: list[dict] | None = None) -> list[int]:
    """Matches of a tournament from seat orders of bot-version ids; enqueued when the transaction commits.
    With ``series`` (duplicate), the matches of one series share its seed. ``options``: each match's own
    (the platform ladder's tables differ in size); else the tournament's."""
    first = tournament.matches.count()
    matches = Match.objects.bulk_create([
        Match(tournament=tournament, game=tournament.game,
              options=options[i] if options is not None else tournament.options,
              seed=tournament.seed * 1_000_003 + (series[i] if series else first + i), round=round, group=group,
              series=series[i] if series else None)
        for i, group in enumerate(groups)
    ])
    if matches and matches[0].pk is None:  # backends that do not return ids from bulk_create
        matches = list(tournament.matches.order_by("id"))[first:]
    MatchSeat.objects.bulk_create([
        MatchSeat(match=m, seat=s, bot_version_id=v) for m, seating in zip(matches, seatings) for s, v in enumerate(seating)
    ])
    match_ids = [m.pk for m in matches]
    transaction.on_commit(lambda: enqueue_matches(match_ids))
    return match_ids


def advance_tournament(tournament_id: int | None) -> None:
    """After a match: finish the tournament, start its next round, or top up the ladder (idempotent)."""
    if tournament_id is None:
        return
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is not None and tournament.status == Tournament.Status.RUNNING:
            _advance(tournament)


OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def advance_after_match(match: Match) -> None:
    """A match of the tournament is done (stored or failed): advance the tournament if that was its last
    open match, or top up its ladder.

    Asked after the match's transaction committed, so of matches finishing together the last to commit
    sees none open and advances (one indexed read for the others; no lock)."""
    tournament = match.tournament
    if tournament is None:
        return
    if tournament.format != Tournament.Format.LADDER and run_statements([(
            f"SELECT 1 FROM {table(Match)} WHERE tournament_id = %s AND status IN (%s, %s) LIMIT 1",
            [tournament.pk, *OPEN])])[0].rows:
        return
    advance_tournament(tournament.pk)


#: How a continuous format tops itself up after each match: format -> top_up(tournament, open matches).
#: tournaments.ladder registers the ladder's when it is imported (at start-up, tournaments.apps): it builds
#: on this module, which must not import it (imports flow one way).
TOP_UPS: dict[str, Callable[[Tournament, int], Any]] = {}


def _advance(tournament: Tournament) -> None:
    """Must run in a transaction holding the tournament row (or creating it)."""
    open_matches = tournament.matches.exclude(status__in=[Match.Status.FINISHED, Match.Status.FAILED]).count()
    fmt = tournament.format
    if fmt == Tournament.Format.LADDER:
        TOP_UPS[fmt](tournament, open_matches)
        return
    if open_matches:
        return
    if fmt == Tournament.Format.ROUND_ROBIN or not _next_round(tournament):
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])


def entry_points(tournament: Tournament) -> dict[int, int]:
    """Tournament points of each entry: seats beaten, summed over its finished matches."""
    points = {v: 0 for v in tournament.entry_set.values_list("bot_version_id", flat=True)}
    by_match: dict[int, list[tuple[int, int]]] = {}
    for match_id, version, rank in MatchSeat.objects.filter(
            match__tournament=tournament, match__status=Match.Status.FINISHED).values_list(
            "match_id", "bot_version_id", "rank"):
        by_match.setdefault(match_id, []).append((version, rank))
    for seats in by_match.values():
        for (version, _), beaten in zip(seats, formats.seats_beaten([r for _, r in seats])):
            points[version] += beaten
    return points


def _conservative(tournament: Tournament, version_ids: list[int]) -> dict[int, float]:
    known = ratings_of(version_ids, seeding_ruleset(tournament))
    return {v: known[v].conservative if v in known else 0.0 for v in version_ids}


def _next_round(tournament: Tournament) -> bool:
    """Create the next round of a Swiss or knockout tournament; False when the tournament is over."""
    plan = tournament.plan or {"rounds": []}
    done = len(plan["rounds"])
    entries = list(tournament.entry_set.order_by("id").values_list("bot_version_id", flat=True))
    points = entry_points(tournament)
    rating = _conservative(tournament, entries)
    seats = tournament.seats_per_match
    if tournament.format == Tournament.Format.SWISS:
        if done >= tournament.rounds:
            return False
        order = sorted(entries, key=lambda v: (-points[v], -rating[v], v))
        met: dict[frozenset, int] = {}
        byes: dict[int, int] = {}
        for past in plan["rounds"]:
            for group in past["groups"]:
                for a in group:
                    for b in group:
                        if a < b:
                            met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
            for v in past["byes"]:
                byes[v] = byes.get(v, 0) + 1
        groups, bye = formats.swiss_round(order, seats, met, byes)
    else:  # knockout
        if done == 0:
            field = sorted(entries, key=lambda v: (-rating[v], v))
        else:
            field = _knockout_advancers(tournament, plan["rounds"][-1], done, rating)
        if len(field) <= 1:
            plan["champion"] = field[0] if field else None
            tournament.plan = plan
            tournament.save(update_fields=["plan"])
            return False
        groups, bye = formats.knockout_groups(field, seats, smallest_table(tournament.game))
        if not groups:  # too few bots left for a match: the best seed wins
            plan["champion"] = field[0]
            tournament.plan = plan
            tournament.save(update_fields=["plan"])
            return False
    round_no = done + 1
    plan["rounds"].append({"groups": [list(g) for g in groups], "byes": list(bye)})
    tournament.plan = plan
    tournament.save(update_fields=["plan"])
    seat_count = {v: [0] * seats for v in entries}
    seatings, group_of = [], []
    for index, group in enumerate(groups):
        local = [seat_count[v] for v in group]
        for order in formats.rotated_games(range(len(group)), tournament.games_per_pairing, local):
            seatings.append([group[i] for i in order])
            group_of.append(index)
    _create_matches(tournament, seatings, round=round_no, groups=group_of)
    return True


def _knockout_advancers(tournament: Tournament, last: dict, round_no: int, rating: dict[int, float]) -> list[int]:
    """The bots that go on from a knockout round, in seed order: each group's best, and the byes."""
    advancing = []
    for index, group in enumerate(last["groups"]):
        score = {v: 0 for v in group}
        for match in tournament.matches.filter(round=round_no, group=index, status=Match.Status.FINISHED):
            seats = list(match.seats.order_by("seat").values_list("bot_version_id", "rank"))
            for (version, _), beaten in zip(seats, formats.seats_beaten([r for _, r in seats])):
                score[version] += beaten
        # Ties go to the better seed (earlier in the group).
        advancing.append(max(group, key=lambda v: (score[v], -group.index(v))))
    seeds = {v: i for i, v in enumerate([v for g in last["groups"] for v in g] + last["byes"])}
    return sorted(advancing + list(last["byes"]), key=lambda v: (-rating[v], seeds[v]))


def stop_tournament(tournament: Tournament) -> None:
    """Stop a tournament early (a ladder, typically): queued matches are dropped, running ones finish."""
    with transaction.atomic():
        Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).delete()
        Tournament.objects.filter(pk=tournament.pk, status=Tournament.Status.RUNNING).update(
            status=Tournament.Status.FINISHED, finished_at=timezone.now())


def checked_options(game: str, seats: int, options: dict | None) -> dict:
    """The full options of a game for ``seats`` players; ``BadOptions`` if the engine would refuse them."""
    return get_game(game).check_table(seats, options)


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
    doorbell.ring_matches(match_ids)


def _claim_statement(match_id: int, worker: str) -> tuple[str, Statement]:
    """A fresh lease token and the conditional update that takes a queued match (or one whose lease expired)
    with it."""
    token = str(uuid.uuid4())
    now_sql, now_params, until_sql, until_params = leases.lease_sql()
    running = Match.Status.RUNNING
    return token, (
        f"UPDATE {table(Match)} SET status = %s, lease_token = %s, lease_until = {until_sql}, "
        f"attempts = attempts + 1, started_at = %s, worker = %s "
        f"WHERE id = %s AND (status = %s OR (status = %s AND lease_until < {now_sql}))",
        [running, token, *until_params, _datetime(timezone.now()), worker[:200], match_id, Match.Status.QUEUED,
         running, *now_params])


def _datetime(value):
    return Match._meta.get_field("finished_at").get_db_prep_value(value, connection)


def claim_match(match_id: int, worker: str = "") -> str | None:
    """Take a queued match (or one whose lease expired) for this worker; the lease token, or None.

    The lease is short (MATCH_LEASE_SECONDS); run_match renews it while the match plays."""
    token, claim = _claim_statement(match_id, worker)
    return token if run_statements([claim], flush=False)[0].rowcount else None


def _claim_and_load(match_id: int, worker: str) -> tuple[str, Match, list[MatchSeat]] | None:
    """Claim a match and read it with its tournament and its seats' versions, in one round trip
    (PostgreSQL); None if it was not ours to claim."""
    token, claim = _claim_statement(match_id, worker)
    with writers_in_turn():
        claimed, loaded = run_statements([claim, (_load_sql(connection.vendor), [match_id])], flush=False)
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
    return make_bot(version.package.path, game, seed=seed, trusted=_arena("TRUSTED_BOTS"),
                    move_ms=_arena("MOVE_MS"))


def run_match(match_id: int, worker: str | None = None) -> str:
    """Claim, play, store and rate one match. Safe to call any number of times for the same id:
    only the claim holder stores a result, and a match is rated once. Returns what happened."""
    worker = worker or socket.gethostname()
    claimed = _claim_and_load(match_id, worker)
    if claimed is None:
        return "not claimed"
    token, match, seats = claimed
    with leases.LeaseKeeper(match_id, token) as keeper:
        bots: list[Bot] = []
        try:
            for s in seats:
                bots.append(build_bot(s.bot_version, match.game, seed=match.seed * 10 + s.seat))
            limits = MatchLimits(max_faults=_arena("MAX_FAULTS"), match_ms=_arena("MATCH_MS"))
            result = play_match(match.game, bots, match.seed, match.options,
                                seat_names=[s.bot_version.label for s in seats], limits=limits,
                                on_decision=keeper.check)
        except leases.LeaseLost:  # taken over or handed back: the match is another worker's now
            for bot in bots:
                bot.close()
            return "handed back" if keeper.handed_back else "lease lost"
        except Exception:  # an engine or set-up error: keep the match, with its error, for a human
            for bot in bots:
                bot.close()
            error = traceback.format_exc()
            log.exception("match %s failed", match_id)
            Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=token).update(
                status=Match.Status.FAILED, error=error[-8000:], finished_at=timezone.now())
            advance_after_match(match)
            return "failed"
        log_data = result.to_dict()
        blob = encode_log(result)  # outside the transaction: the game lock is held only to write
        # A database away for a while (restart, failover, link cut) delays the store; it never fails
        # the match. The heartbeat keeps the lease meanwhile.
        stored = leases.retry_while_leased(keeper, lambda: _store(match, token, log_data, seats, blob), "lease lost")
        if stored == "lease lost":
            log.warning("match %s: lease lost before storing; the worker that took it over stores it", match_id)
    if stored == "finished":
        try:
            advance_after_match(match)
        except leases.CONNECTION_ERRORS:  # the reconciler advances idle tournaments
            log.warning("match %s stored; its tournament advances at the next reconcile", match_id)
    return stored


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
    stored = _store(match, token, log_data)
    if stored == "finished":
        advance_after_match(match)
    return stored


def save_match_log(match_id: int, log_data: dict) -> None:
    """Store (or replace) a match's log in its compact form; the match pipeline stores logs itself
    (``run_match``): this is for logs from elsewhere (imports, fixtures)."""
    MatchLog.objects.update_or_create(match_id=match_id, defaults={"data": encode_checked(log_data)})


def _store(match: Match, token: str, log_data: dict, seats: list[MatchSeat] | None = None,
           blob: bytes | None = None) -> str:
    """One transaction, a fixed number of statements in two round trips (PostgreSQL; tests/platform/
    test_pipeline.py counts them): the transaction's begin, the conditional store (which also marks the match
    rated: exactly once), the log, the seats in one update, then (rated only) the game's lock and rating turn
    and the ratings' read; then the rating writes (apply_rating) with the commit (unrated: the commit goes
    with the first).

    The store swaps the lease token for a token of this attempt, and every later write is conditional on
    it: so they are written only if the store was (a retry after a lost reply finds nothing to do). The
    game's lock is taken last and held to the commit, so it covers the rating writes only, and the order
    in which matches take it is the order in which they commit (finish) and are rated."""
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
    with writers_in_turn(), transaction.atomic():
        # Unrated, these statements are the whole transaction: its commit goes with them (PostgreSQL).
        results = run_statements(statements, flush=False, commit=not ruleset)
        if not results[0].rowcount:
            return "lease lost"  # another worker took the match over; its result counts (nothing was written)
        if ruleset:  # the rating writes end the transaction, its commit sent with them
            turn, number, *read = results[turn_at:]
            if turn.rowcount:
                apply_rating(number.rows[0][0], match.pk, match.game, ruleset, rating, read=read, commit=True)
            else:  # the game's first rated match: no lock row yet, so nothing was locked when the ratings were read
                apply_rating(take_rating_turn(match.game), match.pk, match.game, ruleset, rating, commit=True)
    return "finished"


def reconcile_matches() -> list[int]:
    """Find matches that would otherwise be lost and enqueue them again; returns their ids.

    - running, but the lease expired (not renewed for MATCH_LEASE_SECONDS): the worker died mid-match;
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
    expired = list(Match.objects.filter(status=Match.Status.RUNNING, lease_until__lt=Now()).values_list("pk", flat=True))
    if expired:
        Match.objects.filter(pk__in=expired, status=Match.Status.RUNNING, lease_until__lt=Now()).update(
            status=Match.Status.QUEUED, lease_token="")
    after = _arena("RERING_AFTER_SECONDS") if waiting is not None else _arena("REQUEUE_AFTER_SECONDS")
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
