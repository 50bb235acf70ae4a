"""Writes on tournaments and matches: creating, enqueuing, advancing and stopping tournaments (the lifecycle).

Running a match (claim, play, store, rate) is tournaments.running.pipeline, which builds on this module."""
from __future__ import annotations

import math
import secrets
from typing import Any, Callable, Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from infra.bulk import create_rows, run_statements, table
from bots.models import BotVersion
from engines.core import BadOptions
from engines.games import available_games, get_game
from ratings.selectors import ratings_of
from tournaments.running import doorbell
from tournaments.competition import formats
from tournaments.models import Entry, Match, MatchSeat, Tournament
from tournaments.selectors import matches_to_play, seeding_ruleset


class TournamentError(ValueError):
    """A tournament that cannot be created as asked (the message says why)."""


FORMATS = [f.value for f in Tournament.Format]
#: a rated match's seed is drawn below this: unguessable (a bot that knew its seed would know every deal to come),
#: and exact in any JSON reader (JavaScript's integers are exact below 2**53)
SECRET_SEED_BOUND = 2**53


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
    may organise ``rated`` tournaments (under one of the game's rated rulesets) and enter any valid bot; staff
    plan at most ``ARENA["MAX_MATCHES_PER_STAFF_TOURNAMENT"]`` matches, the platform any number. A player's tournament is friendly (never rated): it may enter the player's own
    bots, the built-in bots and bots whose owners accept challenges, and it is bounded by
    ``ARENA["MAX_MATCHES_PER_TOURNAMENT"]`` and ``ARENA["MAX_QUEUED_MATCHES_PER_USER"]``.
    ``registered``: the bots' owners entered them themselves (a scheduled tournament), so they need not
    accept challenges; the field being theirs, its size is bounded by ``ARENA["MAX_MATCHES_PER_TOURNAMENT"]``
    whoever organises it.
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
    rounds = swiss_rounds(format, len(bot_versions), seats, rounds)
    planned = formats.planned_matches(format, len(bot_versions), seats, games_per_pairing, rounds, max_matches,
                                      smallest_table(game))
    if not trusted:
        _check_caps(created_by, format, planned)
    elif registered:
        # The registrants, not the organiser, chose this field: however many bots they entered, it must not
        # expand into more matches than a tournament may plan (or the scheduler's turn would never end).
        _check_size(planned)
    elif created_by is not None and planned > settings.ARENA["MAX_MATCHES_PER_STAFF_TOURNAMENT"]:
        # Staff are trusted, not typo-proof: 64 bots at 8 seats is billions of matches, expanded in one request.
        raise TournamentError(f"this tournament would play {planned:,} matches; staff may plan at most "
                              f"{settings.ARENA['MAX_MATCHES_PER_STAFF_TOURNAMENT']:,} (the platform's own commands "
                              "are not bound)")
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


def swiss_rounds(format: str, entrants: int, seats: int, rounds: int) -> int:
    """The rounds a tournament plays: a Swiss one asked for 0 plays enough to separate the field."""
    if format == Tournament.Format.SWISS and rounds == 0 and entrants > 0 and seats > 1:
        return max(1, math.ceil(math.log(entrants, seats)) + 1)
    return rounds


def planned_for(*, game: str, format: str, entrants: int, seats: int, games_per_pairing: int, rounds: int,
                max_matches: int) -> int:
    """How many matches a tournament of this shape plays with ``entrants`` bots (``formats.planned_matches``)."""
    return formats.planned_matches(format, entrants, seats, games_per_pairing,
                                   swiss_rounds(format, entrants, seats, rounds), max_matches, smallest_table(game))


def _check_size(planned: int) -> None:
    """A tournament plans at most ``ARENA["MAX_MATCHES_PER_TOURNAMENT"]`` matches."""
    cap = settings.ARENA["MAX_MATCHES_PER_TOURNAMENT"]
    if planned > cap:
        raise TournamentError(f"this tournament would play {planned:,} matches; the limit is {cap:,} per tournament")


def _check_caps(organiser, format: str, planned: int) -> None:
    """Bound the work one player can queue: per tournament, and over all their running tournaments."""
    cap = settings.ARENA["MAX_MATCHES_PER_TOURNAMENT"]
    if format == Tournament.Format.LADDER and not planned:
        raise TournamentError(f"a ladder needs max_matches (at most {cap:,})")
    _check_size(planned)
    # One tournament creation at a time per player, so two requests cannot both fit under the cap.
    type(organiser).objects.select_for_update().filter(pk=organiser.pk).first()
    waiting = matches_to_play(organiser)
    limit = settings.ARENA["MAX_QUEUED_MATCHES_PER_USER"]
    if waiting + planned > limit:
        raise TournamentError(f"your running tournaments still have {waiting:,} matches to play and this one would "
                              f"add {planned:,}; the limit is {limit:,}: wait for them, or stop one")


def _create_matches(tournament: Tournament, seatings: list[list[int]], round: int, groups: list[int],
                    series: list[int] | None = None, options: list[dict] | None = None) -> list[int]:
    """Matches of a tournament from seat orders of bot-version ids; enqueued when the transaction commits.
    With ``series`` (duplicate), the matches of one series share its seed. ``options``: each match's own
    (the platform ladder's tables differ in size); else the tournament's.

    A friendly tournament's seeds follow from its own seed, so that it can be played again. A rated one's are
    drawn at random (``SECRET_SEED_BOUND``): seeds counted from a known number would let a bot carry a table
    of the deals to come and play them with sight of every hidden card."""
    first = tournament.matches.count()
    if tournament.rated:
        per_series = {number: secrets.randbelow(SECRET_SEED_BOUND) for number in series or ()}
        seeds = [per_series[series[i]] if series else secrets.randbelow(SECRET_SEED_BOUND) for i in range(len(groups))]
    else:
        seeds = [tournament.seed * 1_000_003 + (series[i] if series else first + i) for i in range(len(groups))]
    match_ids = create_rows(Match, [
        {"tournament_id": tournament.pk, "game": tournament.game,
         "options": options[i] if options is not None else tournament.options,
         "seed": seeds[i], "round": round, "group": group, "series": series[i] if series else None}
        for i, group in enumerate(groups)
    ])
    create_rows(MatchSeat, [{"match_id": match_id, "seat": s, "bot_version_id": v}
                            for match_id, seating in zip(match_ids, seatings) for s, v in enumerate(seating)])
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


def advance_after_match(match: Match, next_open: Match | None = None) -> None:
    """A match of the tournament is done (stored or failed): advance the tournament if that was its last
    open match, or top up its ladder.

    Asked after the match's transaction committed, so of matches finishing together the last to commit
    sees none open and advances (one indexed read for the others; no lock). ``next_open``: a match this
    worker holds open (claimed with the store); if it is of the same tournament, nothing needs reading."""
    tournament = match.tournament
    if tournament is None:
        return
    if tournament.format != Tournament.Format.LADDER:
        if next_open is not None and next_open.tournament_id == tournament.pk:
            return  # that match is open: this one was not the last
        if run_statements([(
                f"SELECT 1 FROM {table(Match)} WHERE tournament_id = %s AND status IN (%s, %s) LIMIT 1",
                [tournament.pk, *OPEN])])[0].rows:
            return
    advance_tournament(tournament.pk)


#: How a continuous format tops itself up after each match: format -> top_up(tournament, open matches).
#: tournaments.competition.ladder registers the ladder's when it is imported (at start-up, tournaments.apps): it builds
#: on this module, which must not import it (imports flow one way).
TOP_UPS: dict[str, Callable[[Tournament, int], Any]] = {}


def _advance(tournament: Tournament) -> None:
    """Must run in a transaction holding the tournament row (or creating it)."""
    open_matches = tournament.matches.exclude(status__in=Match.DONE).count()
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
        # The row lock first: a round or top-up being made meanwhile (under that lock) commits before the queued
        # matches are read for dropping, so none of its matches is left to be played (and rated) after the stop.
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        Tournament.objects.filter(pk=tournament.pk, status=Tournament.Status.RUNNING).update(
            status=Tournament.Status.FINISHED, finished_at=timezone.now())
        Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).delete()


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
