"""Statistics of a game's results: head-to-head, results by seat, score distributions and match lengths.

Over the game's rated matches (optionally one rated ruleset), or over one tournament's finished matches.
Everything is counted in SQL (GROUP BY); Python only bins the grouped values, so the cost grows with the
number of distinct scores and lengths, never with the number of matches held in memory.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.db.models import Count, F, Q, Window

from infra.caching import cache_get, cache_set
from engines.games import get_game
from ratings.selectors import STANDARD, leaderboard
from tournaments.models import Match, MatchSeat, Tournament

#: The head-to-head matrix is limited to the best rated bots (of the ruleset's leaderboard).
DEFAULT_TOP, MAX_TOP = 10, 30
#: Histograms have at most this many bins.
MAX_BINS = 20


def _match_filter(game: str, ruleset: str | None, tournament: int | None) -> dict:
    """Which matches count: finished, of the game; rated ones (of ``ruleset``), or those of one tournament."""

    where = {"game": game, "status": Match.Status.FINISHED}
    if tournament is not None:
        where |= {"tournament_id": tournament, "purpose": Match.Purpose.TOURNAMENT}
    else:
        where["rated"] = True
    if ruleset is not None:
        where["ruleset"] = ruleset
    return where


def _seats(where: Mapping):

    return MatchSeat.objects.filter(rank__isnull=False, **{f"match__{k}": v for k, v in where.items()})


def top_versions(game: str, ruleset: str | None, top: int = DEFAULT_TOP) -> list:
    """The ``top`` best bot versions of the ruleset's leaderboard (standard when none is named)."""
    return [r.bot_version for r in leaderboard(game, ruleset or STANDARD)[:top]]


def head_to_head(game: str, ruleset: str | None = None, tournament: int | None = None,
                 top: int = DEFAULT_TOP) -> dict:
    """For each ordered pair (A, B) of the ``top`` best rated bots: the matches they played together and how
    often A placed above B, below B, or tied with B. ``bots`` lists the bots in leaderboard order."""
    versions = top_versions(game, ruleset, top)
    ids = [v.pk for v in versions]
    pairs = (_seats(_match_filter(game, ruleset, tournament))
             .filter(bot_version_id__in=ids, match__seats__bot_version_id__in=ids)
             .annotate(other=F("match__seats__bot_version_id"), other_rank=F("match__seats__rank"))
             .values("bot_version_id", "other")
             .annotate(matches=Count("id"), above=Count("id", filter=Q(rank__lt=F("other_rank"))),
                       ties=Count("id", filter=Q(rank=F("other_rank"))))
             .order_by())
    cells = [{"a": p["bot_version_id"], "b": p["other"], "matches": p["matches"], "above": p["above"],
              "below": p["matches"] - p["above"] - p["ties"], "ties": p["ties"]}
             for p in pairs if p["bot_version_id"] != p["other"]]  # a seat paired with itself
    order = {pk: n for n, pk in enumerate(ids)}
    cells.sort(key=lambda c: (order[c["a"]], order[c["b"]]))
    return {"bots": [{"bot_version": v.pk, "label": v.label} for v in versions], "cells": cells}


def seat_results(game: str, ruleset: str | None = None, tournament: int | None = None) -> list[dict]:
    """Per table size and seat (0 = the first player): matches, average place (1 = first) and win rate
    (share of first places, ties included): the first-player advantage."""
    # The table size is a window count over the match's seats; Django cannot aggregate over a window, so
    # the grouping wraps the queryset's own SQL (10x faster than a count subquery per seat).
    seats = (_seats(_match_filter(game, ruleset, tournament))
             .annotate(players=Window(Count("id"), partition_by=F("match_id"))).values("seat", "rank", "players"))
    sql, params = seats.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SELECT players, seat, COUNT(*), AVG(rank), SUM(CASE WHEN rank = 0 THEN 1 ELSE 0 END) "
                       f"FROM ({sql}) seats GROUP BY players, seat ORDER BY players, seat", params)
        rows = cursor.fetchall()
    return [{"players": players, "seat": seat, "matches": n, "average_place": float(mean_rank) + 1,
             "win_rate": wins / n} for players, seat, n, mean_rank, wins in rows]


def histogram(counts: Mapping[float, int], max_bins: int = MAX_BINS, like: Mapping[float, int] | None = None
              ) -> list[dict]:
    """Bin grouped values ({value: count}) into at most ``max_bins`` equal bins [low, high); whole-number
    values get whole-number bins (one per value when they fit). ``like``: take the bins of those values
    instead (two histograms on one axis)."""
    span = like if like is not None else counts
    if not span:
        return []
    lo, hi = min(span), max(span)
    whole = all(float(v).is_integer() for v in span)
    if whole:
        width = max(1, math.ceil((hi - lo + 1) / max_bins))
        n = math.ceil((hi - lo + 1) / width)
    else:
        width = (hi - lo) / max_bins if hi > lo else 1.0
        n = max_bins if hi > lo else 1
    bins = [0] * n
    for value, count in counts.items():
        bins[max(0, min(int((value - lo) // width), n - 1))] += count
    return [{"low": lo + k * width, "high": lo + (k + 1) * width, "count": c} for k, c in enumerate(bins)]


def score_distribution(game: str, ruleset: str | None = None, tournament: int | None = None) -> dict:
    """The outcome's scores: a histogram of every seat's score, and of the winners' (place 1) scores over
    the same bins."""
    rows = (_seats(_match_filter(game, ruleset, tournament)).filter(score__isnull=False)
            .values("score").annotate(n=Count("id"), wins=Count("id", filter=Q(rank=0))).order_by())
    every = {r["score"]: r["n"] for r in rows}
    winners = {r["score"]: r["wins"] for r in rows if r["wins"]}
    total = sum(every.values())
    return {"seats": total, "mean": sum(v * n for v, n in every.items()) / total if total else None,
            "bins": histogram(every), "winner_bins": histogram(winners, like=every)}


def match_lengths(game: str, ruleset: str | None = None, tournament: int | None = None) -> dict:
    """Match lengths in moves (every action the bots took): mean, median and a histogram."""

    rows = (Match.objects.filter(**_match_filter(game, ruleset, tournament))
            .values("num_moves").annotate(n=Count("id")).order_by("num_moves"))
    counts = {r["num_moves"]: r["n"] for r in rows}
    total = sum(counts.values())
    median, seen = None, 0
    for value, n in counts.items():  # ascending
        seen += n
        if 2 * seen >= total:
            median = value
            break
    return {"matches": total, "mean": sum(v * n for v, n in counts.items()) / total if total else None,
            "median": median, "bins": histogram(counts)}


def game_statistics(game: str, ruleset: str | None = None, tournament: int | None = None,
                    top: int = DEFAULT_TOP) -> dict:
    """All of a game's statistics (what the statistics page and the API show)."""
    return {"game": game, "ruleset": ruleset, "tournament": tournament,
            "head_to_head": head_to_head(game, ruleset, tournament, top),
            "seats": seat_results(game, ruleset, tournament),
            "scores": score_distribution(game, ruleset, tournament),
            "lengths": match_lengths(game, ruleset, tournament)}


def _cache_key(game: str, ruleset: str | None, tournament: int | None, top: int) -> tuple[str, int]:
    """The cache key of a view of the statistics, and how long it is kept."""
    prefix = f"stats:{connection.settings_dict['NAME']}:{game}:{ruleset}"
    if tournament is None:
        return f"{prefix}:rated:{top}", _rated_keep_seconds()
    if Tournament.objects.filter(pk=tournament, format=Tournament.Format.LADDER).exists():
        # A ladder never ends and finishes a match every few seconds: counted per match, anyone could have its
        # whole history recounted at every request. Kept as the rated views are instead (``as_of`` says when).
        return f"{prefix}:{tournament}:ladder:{top}", int(settings.ARENA["STATS_SECONDS"])
    # A tournament's statistics change only when another of its matches finishes.
    finished = Match.objects.filter(tournament_id=tournament, status=Match.Status.FINISHED).count()
    return f"{prefix}:{tournament}:{finished}:{top}", 3600


def _count(game: str, ruleset: str | None, tournament: int | None, top: int) -> dict:
    return {**game_statistics(game, ruleset, tournament, top), "as_of": timezone.now()}


def cached_game_statistics(game: str, ruleset: str | None = None, tournament: int | None = None,
                           top: int = DEFAULT_TOP) -> dict:
    """:func:`game_statistics` as pages and the API serve them, with ``as_of`` (when they were counted).

    Rated statistics read every rated match of the game, too much for a request or for every rated
    match: beat's statistics thread recounts the usual views every ``ARENA_STATS_SECONDS``
    (:func:`refresh_statistics`), other views are counted on first request and kept as long. A
    tournament's are kept until another of its matches finishes, a ladder's for ``ARENA_STATS_SECONDS``."""
    key, keep = _cache_key(game, ruleset, tournament, top)
    stats = cache_get(key)
    if stats is None:
        stats = _count(game, ruleset, tournament, top)
        cache_set(key, stats, keep)
    return stats


def _rated_keep_seconds() -> int:
    # Rated views outlive two refresh rounds, so the refreshed ones are never missing between rounds.
    return int(2 * settings.ARENA["STATS_SECONDS"]) + 60


def refresh_statistics(games) -> int:
    """Recount the rated statistics the pages show by default (every ruleset, then each rated ruleset;
    the default matrix size) of ``games`` into the cache; returns the views counted."""
    views = 0
    for game in games:
        for ruleset in (None, *get_game(game).rated_presets):
            key, keep = _cache_key(game, ruleset, None, DEFAULT_TOP)
            cache_set(key, _count(game, ruleset, None, DEFAULT_TOP), keep)
            views += 1
    return views
