"""Replay the rated history under another rating model (how stable is the ranking?).

The rated matches of a game are replayed in the order they were rated (``RatingChange.sequence``), seats in
seat order, into ``ModelRating`` rows of that model: overall (bracket "all") and per player-count bracket.
Replayed under TrueSkill with the live environment, the result equals the live ratings exactly.

Models:
- trueskill: the live environment (``ratings.services.environment``).
- openskill: the openskill library's Plackett-Luce model with its defaults (mu 25, sigma 25/3).
- elo: pairwise Elo for N players: every pair at the table is a game (win 1, tie 1/2, loss 0) against the
  pre-match ratings; a seat moves by ELO_K / (N - 1) times the sum of its (score - expected) over its
  N - 1 opponents, so a two-player match is classic Elo with K = ELO_K. Start ELO_START; no uncertainty.
  (No maintained Elo library does N players; the formula is these few lines.)
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import groupby

from django.db import transaction
from django.db.models import OuterRef, Subquery
from openskill.models import PlackettLuce

from ratings import free_for_all
from ratings.brackets import ALL, bracket_of
from ratings.models import BracketRating, ModelRating, RatingChange
from ratings.services import environment, lock_game
from tournaments.models import MatchSeat

ELO_START, ELO_K = 1500.0, 32.0

#: (mu, sigma) per seat -> (mu, sigma) per seat after a match with these 0-based ranks.
Rater = Callable[[list[tuple[float, float]], list[int]], list[tuple[float, float]]]


def _trueskill() -> tuple[tuple[float, float], Rater]:
    env = environment()

    def rate(before, ranks):
        return [(r.mu, r.sigma) for r in free_for_all.rate(env, before, ranks)]

    return (env.mu, env.sigma), rate


def _openskill() -> tuple[tuple[float, float], Rater]:
    model = PlackettLuce()

    def rate(before, ranks):
        new = model.rate([[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before], ranks=list(ranks))
        return [(team[0].mu, team[0].sigma) for team in new]

    return (model.mu, model.sigma), rate


def elo_update(before: Sequence[float], ranks: Sequence[int], k: float = ELO_K) -> list[float]:
    """Pairwise Elo for one table: each seat against every other seat, from the pre-match ratings."""
    n = len(before)
    if n < 2:
        return list(before)
    after = []
    for i, (r_i, rank_i) in enumerate(zip(before, ranks)):
        delta = 0.0
        for j, (r_j, rank_j) in enumerate(zip(before, ranks)):
            if i != j:
                score = 1.0 if rank_i < rank_j else 0.5 if rank_i == rank_j else 0.0
                delta += score - 1.0 / (1.0 + 10 ** ((r_j - r_i) / 400.0))
        after.append(r_i + k / (n - 1) * delta)
    return after


def _elo() -> tuple[tuple[float, float], Rater]:
    def rate(before, ranks):
        return [(mu, 0.0) for mu in elo_update([mu for mu, _ in before], ranks)]

    return (ELO_START, 0.0), rate


RATERS: dict[str, Callable[[], tuple[tuple[float, float], Rater]]] = {
    ModelRating.Model.TRUESKILL: _trueskill, ModelRating.Model.OPENSKILL: _openskill, ModelRating.Model.ELO: _elo,
}


def rated_history(game: str) -> Iterator[tuple[int, str, list[tuple[int, int]]]]:
    """The rated matches of ``game`` in the order they were rated: (match id, ruleset, [(bot version, rank)]
    in seat order). Streamed from one ordered query (a server-side cursor on PostgreSQL)."""

    sequence = RatingChange.objects.filter(match=OuterRef("match")).values("sequence")[:1]
    rows = (MatchSeat.objects.filter(match__game=game, match__rated=True)
            .annotate(sequence=Subquery(sequence))
            .order_by("sequence", "match_id", "seat")
            .values_list("match_id", "match__ruleset", "bot_version_id", "rank")
            .iterator(chunk_size=2000))
    for (match_id, ruleset), seats in groupby(rows, key=lambda row: (row[0], row[1])):
        yield match_id, ruleset, [(version, rank) for _, _, version, rank in seats]


def replay(game: str, model: str) -> dict[tuple[int, str, str], list]:
    """Replay the rated history of ``game`` under ``model``: {(bot version, ruleset, bracket): [mu, sigma,
    games]}, bracket "all" for the overall rating."""
    start, rate = RATERS[model]()
    ratings: dict[tuple[int, str, str], list] = {}
    for _, ruleset, seats in rated_history(game):
        ranks = [rank for _, rank in seats]
        for bracket in (ALL, bracket_of(len(seats))):
            if bracket is None:
                continue
            keys = [(version, ruleset, bracket) for version, _ in seats]
            current = [ratings.setdefault(key, [*start, 0]) for key in keys]
            new = rate([(r[0], r[1]) for r in current], ranks)
            for key, (mu, sigma) in zip(keys, new):
                ratings[key][0], ratings[key][1] = mu, sigma
            for key in dict.fromkeys(keys):  # a version seated twice plays one game
                ratings[key][2] += 1
    return ratings


def recompute(game: str, model: str) -> int:
    """Replace the ``model`` ratings of ``game`` by a replay of its rated history; returns the rows written."""
    if model not in RATERS:
        raise ValueError(f"unknown rating model {model!r}; models: {', '.join(RATERS)}")
    ratings = replay(game, model)
    rows = [ModelRating(model=model, game=game, bot_version_id=version, ruleset=ruleset, bracket=bracket,
                        mu=mu, sigma=sigma, games=games)
            for (version, ruleset, bracket), (mu, sigma, games) in ratings.items()]
    with transaction.atomic():
        ModelRating.objects.filter(model=model, game=game).delete()
        ModelRating.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def rebuild_brackets(game: str) -> int:
    """Rebuild the live player-count bracket ratings of ``game`` from its rated history (for matches rated
    before brackets existed): the TrueSkill replay, which reproduces the live ratings exactly. Holds the
    game's rating lock while it replays, so no match is rated meanwhile. Returns the rows written."""

    with transaction.atomic():
        lock_game(game)
        rows = [BracketRating(game=game, bot_version_id=version, ruleset=ruleset, bracket=bracket, mu=mu,
                              sigma=sigma, games=games)
                for (version, ruleset, bracket), (mu, sigma, games) in replay(game, "trueskill").items()
                if bracket != ALL]
        BracketRating.objects.filter(game=game).delete()
        BracketRating.objects.bulk_create(rows, batch_size=1000)
    return len(rows)
