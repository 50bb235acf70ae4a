"""Ladders: the platform's continuous rated ladder of each game, and ladder tournaments with a fixed field.

The platform ladder of a game (``start_ladder``) is a rated ladder tournament organised by the platform.
Its field is every active bot of the game: each bot's newest valid version (a new valid upload replaces
the older one from its next table on; older versions keep their ratings but no longer play). The
matchmaker (``tournaments.competition.matchmaker``) fills tables at the game's rated player counts, chosen with
``ladder_weights``; one bot per author at a table. Built-in bots take part, each built-in its own author
(they are written independently, and with a single "platform" author a game with few uploads could
only ever play 2-seat tables). Every table is played under the rated ruleset of its size (Catan 3-4:
``standard``, 5-6: ``five_six_players``), so every ladder match is rated: the ladder is where public
ratings come from (with rated tournaments that staff organise).

It runs at ``ARENA["LADDER_MATCHES_PER_MINUTE"]`` new matches per minute per game and at most
``ARENA["LADDER_MAX_CONCURRENT"]`` queued or running per game. Tables are made whenever the tournament
advances (after each of its matches, under its row lock) and by the scheduler in the beat process
(``tick``); all state is in the database (match counts and seats, the tournament's ``plan``), so a top-up
is idempotent and a restart goes on where it stopped. The bound every bot is held to is in
``tournaments.competition.matchmaker``.
"""
from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from datetime import timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, OuterRef, Subquery
from django.utils import timezone

from bots.models import Bot, BotVersion
from engines.core import BadOptions
from engines.games import available_games, get_game
from ratings.selectors import ratings_of
from ratings.services import environment
from tournaments import services
from tournaments.competition import matchmaker
from tournaments.models import Entry, Ladder, Match, MatchSeat, Tournament
from tournaments.selectors import seeding_ruleset

#: Table sizes of each game's ladder and how often each is played (relative weights), where
#: ``ARENA["LADDER_WEIGHTS"]`` says nothing else. The middle counts, the ones the games are designed
#: around, weigh most; the extremes (2 players, a full table) are played too. Only sizes that a rated
#: preset of the game allows are ever played; a game missing here plays each of them equally.
DEFAULT_WEIGHTS: dict[str, dict[int, float]] = {
    "port_royal": {2: 1, 3: 2, 4: 2, 5: 1},
    "el_capitan": {2: 1, 3: 2, 4: 2, 5: 1},
    "alhambra": {2: 1, 3: 2, 4: 2, 5: 1, 6: 1},
    "catan": {3: 2, 4: 3, 5: 1, 6: 1},
    "top_race": {2: 1, 3: 2, 4: 2, 5: 1, 6: 1},
}


# --- the tables of a game -------------------------------------------------------------------------
@cache
def table_rules(game: str) -> dict[int, tuple[str, dict]]:
    """Player count -> (rated ruleset, full options) for every count some rated preset of the game allows.
    (Cached: the presets are part of the game's code. Read-only.)"""
    engine = get_game(game)
    rules: dict[int, tuple[str, dict]] = {}
    for preset, overrides in engine.rated_presets.items():
        for size in engine.preset_players(preset):
            if size in rules or size < 2:
                continue
            try:
                options = services.checked_options(game, size, overrides)
            except BadOptions:
                continue
            if engine.rated_preset(size, options) == preset:
                rules[size] = (preset, options)
    return dict(sorted(rules.items()))


def ladder_weights(game: str) -> dict[int, float]:
    """Table size -> weight of the game's ladder: the configured or default weights, rated sizes only."""
    rated = table_rules(game)
    configured = (settings.ARENA["LADDER_WEIGHTS"] or {}).get(game) or DEFAULT_WEIGHTS.get(game)
    if not configured:
        return {size: 1.0 for size in rated}
    return {int(size): float(w) for size, w in configured.items() if int(size) in rated and float(w) > 0}


# --- the field --------------------------------------------------------------------------------------
def author_of(version: BotVersion) -> str:
    """Who wrote a bot, for the one-per-author rule: its owner; each built-in bot is its own author."""
    bot = version.bot
    if bot.owner.is_system:  # the built-in bots: written independently of each other
        return f"builtin:{bot.pk}"
    return f"player:{bot.owner_id}"


def active_versions(game: str) -> list[BotVersion]:
    """The ladder's field: the newest valid version of every bot of the game that has one.

    Picked in the database, one row a bot (from the (bot, number) index): every top-up reads the field, and
    an author's old versions, however many, must not weigh on it."""
    newest = (BotVersion.objects.filter(bot_id=OuterRef("pk"), status=BotVersion.Status.VALID)
              .order_by("-number").values("pk")[:1])
    active = Bot.objects.filter(game=game).annotate(active=Subquery(newest)).filter(active__isnull=False)
    return list(BotVersion.objects.filter(pk__in=active.values("active")).select_related("bot__owner").order_by("pk"))


# --- starting and stopping -----------------------------------------------------------------------
@transaction.atomic
def start_ladder(game: str, *, seed: int = 0) -> Ladder:
    """Start (or resume) the platform's ladder of ``game``. Idempotent: a running ladder is left as it is."""
    if game not in available_games():
        raise services.TournamentError(f"unknown game {game!r}; games: {', '.join(available_games())}")
    weights = ladder_weights(game)
    if not weights:
        raise services.TournamentError(f"{game} has no rated table size to play a ladder at")
    ladder = Ladder.objects.select_for_update().filter(game=game).first()
    if ladder is not None and ladder.active and ladder.tournament.status == Tournament.Status.RUNNING:
        return ladder
    engine = get_game(game)
    rules = table_rules(game)
    ruleset, options = rules[max(weights, key=lambda s: (weights[s], -s))]
    tournament = Tournament.objects.create(
        name=f"{engine.name} ladder", game=game, format=Tournament.Format.LADDER, seats_per_match=max(weights),
        options=options, seed=seed, rated=True, ruleset=ruleset, created_by=None, plan={"platform_ladder": True})
    if ladder is None:
        ladder = Ladder.objects.create(game=game, tournament=tournament)
    else:
        ladder.tournament, ladder.active = tournament, True
        ladder.save(update_fields=["tournament", "active"])
    services.advance_tournament(tournament.pk)  # the first tables
    return ladder


def stop_ladder(game: str) -> None:
    """Stop the ladder of ``game``: no new tables; its queued matches are dropped, running ones finish."""
    ladder = Ladder.objects.filter(game=game).first()
    if ladder is None:
        return
    Ladder.objects.filter(pk=ladder.pk).update(active=False)
    services.stop_tournament(ladder.tournament)


def tick() -> int:
    """Top up every running ladder (the scheduler calls this every few seconds); matches created."""
    before = Match.objects.filter(tournament__ladders__active=True).count()
    for tournament_id in Ladder.objects.filter(active=True).values_list("tournament_id", flat=True):
        services.advance_tournament(tournament_id)
    return Match.objects.filter(tournament__ladders__active=True).count() - before


# --- making tables ----------------------------------------------------------------------------------
def is_platform_ladder(tournament: Tournament) -> bool:
    return bool((tournament.plan or {}).get("platform_ladder"))


def top_up(tournament: Tournament, open_matches: int) -> list[int]:
    """Create the ladder's next tables (ids of the new matches). Runs in the transaction holding the
    tournament's row, so two callers never make the same table."""
    if is_platform_ladder(tournament):
        return _top_up_platform(tournament, open_matches)
    return _top_up_fixed(tournament, open_matches)


def _waits(tournament: Tournament, keys: list[int], joined: dict[str, int]) -> tuple[dict[int, int], int]:
    """Ladder matches created since each bot last sat in one (or since it joined); and the total.

    Reads only the matches after the oldest of those last matches (ids grow with creation), so the cost
    follows the longest wait, not the length of the ladder's history."""
    total = tournament.matches.count()
    last = dict(MatchSeat.objects.filter(match__tournament=tournament, bot_version_id__in=keys)
                .values("bot_version_id").annotate(last=Max("match_id")).values_list("bot_version_id", "last"))
    later = (list(tournament.matches.filter(pk__gt=min(last.values())).order_by("id").values_list("id", flat=True))
             if last else [])
    waits = {}
    for key in keys:
        if key in last:
            waits[key] = len(later) - bisect_right(later, last[key])
        else:
            waits[key] = total - min(joined.get(str(key), 0), total)
    return waits, total


def _busy(tournament: Tournament) -> set[int]:
    return set(MatchSeat.objects.filter(
        match__tournament=tournament, match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
    ).values_list("bot_version_id", flat=True))


def _top_up_fixed(tournament: Tournament, open_matches: int) -> list[int]:
    """A ladder tournament with a fixed field: one table size, any author, LADDER_PARALLEL at once,
    ``max_matches`` in all (0: until stopped)."""
    played = tournament.matches.count()
    budget = tournament.max_matches - played if tournament.max_matches else None
    want = settings.ARENA["LADDER_PARALLEL"] - open_matches
    if budget is not None:
        want = min(want, budget)
        if budget <= 0 and open_matches == 0:
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = timezone.now()
            tournament.save(update_fields=["status", "finished_at"])
            return []
    if want <= 0:
        return []
    entries = list(tournament.entry_set.order_by("id").values_list("bot_version_id", flat=True))
    ratings = ratings_of(entries, seeding_ruleset(tournament))
    env = environment()
    games = dict(MatchSeat.objects.filter(match__tournament=tournament).values("bot_version_id")
                 .annotate(n=Count("id")).values_list("bot_version_id", "n"))
    waits, total = _waits(tournament, entries, {})
    busy = _busy(tournament)
    free = [matchmaker.Candidate(v, str(v), ratings[v].mu if v in ratings else env.mu,
                                 ratings[v].sigma if v in ratings else env.sigma, games.get(v, 0), waits[v])
            for v in entries if v not in busy]
    weights = {tournament.seats_per_match: 1.0}
    tables = matchmaker.plan_tables(
        free, weights, {}, want, patience=matchmaker.patience(len(entries), weights),
        window=settings.ARENA["LADDER_MU_WINDOW"], rng=random.Random(tournament.seed * 7919 + total), distinct_authors=False)
    # Rotate the seat order by the number of matches so far: no bot keeps the first seat.
    seatings = []
    for i, table in enumerate(tables):
        shift = (total + i) % len(table)
        seatings.append(table[shift:] + table[:shift])
    if not seatings:
        return []
    return services._create_matches(tournament, seatings, round=1, groups=[0] * len(seatings))


def _sync_field(tournament: Tournament) -> list[BotVersion]:
    """Enter every active version (idempotent) and note when each joined; the active versions."""
    versions = active_versions(tournament.game)
    plan = dict(tournament.plan or {})
    joined = dict(plan.get("joined", {}))
    new = [v for v in versions if str(v.pk) not in joined]
    if new:
        Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in new], ignore_conflicts=True)
        total = tournament.matches.count()
        for v in new:
            joined[str(v.pk)] = total
        plan["joined"] = joined
        tournament.plan = plan
        tournament.save(update_fields=["plan"])
    return versions


def _rate_budget(tournament: Tournament, open_matches: int) -> int:
    recent = tournament.matches.filter(created_at__gte=timezone.now() - timedelta(seconds=60)).count()
    return min(settings.ARENA["LADDER_MAX_CONCURRENT"] - open_matches, settings.ARENA["LADDER_MATCHES_PER_MINUTE"] - recent)


def _ladder_state(tournament: Tournament, versions: list[BotVersion]) -> dict:
    """What the matchmaker and the queue estimate need: weights, waits, the bound."""
    weights = ladder_weights(tournament.game)
    authors = {v.pk: author_of(v) for v in versions}
    # Sizes the field can fill at all (one bot per author): the mean table and the patience use these.
    reachable = {s: w for s, w in weights.items() if s <= len(set(authors.values()))}
    keys = [v.pk for v in versions]
    waits, total = _waits(tournament, keys, (tournament.plan or {}).get("joined", {}))
    return {"weights": reachable, "authors": authors, "waits": waits, "total": total,
            "patience": matchmaker.patience(len(keys), reachable), "bound": matchmaker.bound(len(keys), reachable)}


def _played_by_size(tournament: Tournament) -> dict[int, int]:
    """Matches made so far per table size (kept in the plan as they are made; counted once if missing)."""
    sizes = (tournament.plan or {}).get("sizes")
    if sizes is None:
        return dict(Counter(tournament.matches.annotate(n=Count("seats")).values_list("n", flat=True)))
    return {int(size): n for size, n in sizes.items()}


def _top_up_platform(tournament: Tournament, open_matches: int) -> list[int]:
    ladder = Ladder.objects.filter(tournament=tournament, active=True).first()
    if ladder is None:
        return []
    want = _rate_budget(tournament, open_matches)
    if want <= 0:
        return []
    versions = _sync_field(tournament)
    state = _ladder_state(tournament, versions)
    if not state["weights"]:
        return []
    rules = table_rules(tournament.game)
    env = environment()

    def rated(size: int, keys) -> dict[int, tuple[float, float, int]]:
        known = ratings_of(keys, rules[size][0])
        return {k: (known[k].mu, known[k].sigma, known[k].games) if k in known else (env.mu, env.sigma, 0)
                for k in keys}

    busy = _busy(tournament)
    free = [matchmaker.Candidate(v.pk, state["authors"][v.pk], env.mu, env.sigma, 0, state["waits"][v.pk])
            for v in versions if v.pk not in busy]
    rng = random.Random(tournament.seed * 7919 + state["total"])
    tables = matchmaker.plan_tables(free, state["weights"], _played_by_size(tournament), want,
                                    patience=state["patience"], window=settings.ARENA["LADDER_MU_WINDOW"], rng=rng,
                                    distinct_authors=True, ratings=rated)
    seatings = []
    for table in tables:
        rng.shuffle(table)  # the seat order: the needy seed is not always first to move
        seatings.append(table)
    if not seatings:
        return []
    played = _played_by_size(tournament)
    for table in seatings:
        played[len(table)] = played.get(len(table), 0) + 1
    tournament.plan = {**(tournament.plan or {}), "sizes": {str(size): n for size, n in played.items()}}
    tournament.save(update_fields=["plan"])
    return services._create_matches(tournament, seatings, round=1, groups=[0] * len(seatings),
                                    options=[rules[len(t)][1] for t in seatings])


# --- reads ------------------------------------------------------------------------------------------
def ladder_queue(bot: Bot) -> dict | None:
    """Where a bot stands in its game's ladder (for its page), or None when the game has no running ladder.

    ``version``: the version that plays (the newest valid; None: no valid version, so it does not play);
    ``waited``: ladder matches since its last; ``every``: the average gap between a bot's matches
    (active bots / mean table size); ``bound``: the most it waits while free (``tournaments.competition.matchmaker``);
    ``expected``: matches until its next (about); ``per_minute``: matches per minute lately (or the
    configured rate); ``minutes``: ``expected`` in minutes at that pace; ``playing``: in a match now.
    """
    ladder = Ladder.objects.filter(game=bot.game, active=True).select_related("tournament").first()
    if ladder is None or ladder.tournament.status != Tournament.Status.RUNNING:
        return None
    tournament = ladder.tournament
    versions = active_versions(bot.game)
    version = next((v for v in versions if v.bot_id == bot.pk), None)
    info: dict[str, Any] = {"ladder": tournament, "version": version, "active": len(versions)}
    if version is None:
        return info
    state = _ladder_state(tournament, versions)
    mean = matchmaker.mean_table(state["weights"]) or 2.0
    every = max(1.0, len(versions) / mean)
    waited = state["waits"].get(version.pk, 0)
    per_minute = _recent_pace(tournament) or float(settings.ARENA["LADDER_MATCHES_PER_MINUTE"])
    expected = max(1, round(every - waited)) if waited < state["bound"] else 1
    info.update(waited=waited, every=round(every, 1), bound=state["bound"], expected=expected,
                per_minute=round(per_minute, 1), minutes=round(expected / per_minute, 1) if per_minute else None,
                playing=version.pk in _busy(tournament))
    return info


def _recent_pace(tournament: Tournament) -> float:
    """Ladder matches made per minute over the last ten minutes (or since the first of them), 0 if none."""
    now = timezone.now()
    recent = tournament.matches.filter(created_at__gte=now - timedelta(minutes=10))
    first = recent.order_by("created_at").values_list("created_at", flat=True).first()
    if first is None:
        return 0.0
    return recent.count() / max(1.0, (now - first).total_seconds() / 60)


def ladder_summary(lad: Ladder) -> dict:
    """A ladder as the API shows it: its tables (size, ruleset, weight), field, bound and pace."""
    tournament = lad.tournament
    versions = active_versions(lad.game)
    state = _ladder_state(tournament, versions)
    rules = table_rules(lad.game)
    running = lad.active and tournament.status == Tournament.Status.RUNNING
    return {"game": lad.game, "running": running, "tournament": tournament.pk, "bots": len(versions),
            "tables": [{"players": size, "ruleset": rules[size][0], "weight": weight,
                        "reachable": size in state["weights"]} for size, weight in ladder_weights(lad.game).items()],
            "matches": tournament.matches.count(), "patience": state["patience"], "bound": state["bound"],
            "matches_per_minute": settings.ARENA["LADDER_MATCHES_PER_MINUTE"],
            "max_concurrent": settings.ARENA["LADDER_MAX_CONCURRENT"], "recent_pace": round(_recent_pace(tournament), 2)}


services.TOP_UPS[Tournament.Format.LADDER] = top_up  # the match pipeline tops the ladder up through this
