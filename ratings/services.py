"""Rating updates: TrueSkill over the ranks of all seats, exactly once per match, one match at a time."""
from __future__ import annotations

from functools import cache

import trueskill
from django.db import transaction

from ratings.brackets import rate_bracket
from ratings.models import GameLock, Rating, RatingChange

# Games have ties (shared ranks), so the draw probability is not zero.
MU, SIGMA, BETA, TAU, DRAW_PROBABILITY = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300, 0.05


@cache
def environment() -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY,
                               backend=None)


def lock_game(game: str) -> GameLock:
    """Take the per-game rating lock for the rest of the current transaction.

    PostgreSQL: a row lock (SELECT ... FOR UPDATE). SQLite: the IMMEDIATE transaction already holds the
    database's write lock, so every write transaction is serialized anyway.
    """
    GameLock.objects.get_or_create(game=game)
    return GameLock.objects.select_for_update().get(game=game)


def rating_for(bot_version, ruleset: str) -> Rating:
    """The version's rating under ``ruleset`` (a fresh one on its first rated match)."""
    env = environment()
    rating, _ = Rating.objects.get_or_create(
        bot_version=bot_version, ruleset=ruleset,
        defaults={"game": bot_version.bot.game, "mu": env.mu, "sigma": env.sigma},
    )
    return rating


def rate_match(match, ruleset: str) -> bool:
    """Apply the TrueSkill update of a finished match to the ratings of ``ruleset``; a no-op (False) if
    the match is already rated.

    Must run inside the transaction that marks the match finished, after ``lock_game``. Whether a match
    may be rated at all (a rated tournament, a rated ruleset) is the caller's decision.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("rate_match must run inside the transaction that marks the match finished")
    lock = lock_game(match.game)
    if type(match).objects.filter(pk=match.pk, rated=True).exists():
        return False
    seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
    ratings = [rating_for(s.bot_version, ruleset) for s in seats]
    # Fresh values under the lock (another transaction may have changed them since they were read).
    ratings = [Rating.objects.get(pk=r.pk) for r in ratings]
    env = environment()
    groups = [(env.create_rating(r.mu, r.sigma),) for r in ratings]
    ranks = [s.rank for s in seats]
    new = env.rate(groups, ranks=ranks)
    lock.sequence += 1
    lock.save(update_fields=["sequence"])
    for seat, rating, (after,) in zip(seats, ratings, new):
        RatingChange.objects.create(
            rating=rating, match=match, sequence=lock.sequence, rank=seat.rank,
            mu_before=rating.mu, sigma_before=rating.sigma, mu_after=after.mu, sigma_after=after.sigma,
        )
        rating.mu, rating.sigma, rating.games = after.mu, after.sigma, rating.games + 1
        rating.save(update_fields=["mu", "sigma", "games", "updated_at"])
    rate_bracket(match.game, ruleset, seats, env)  # the leaderboard of its player count (2, 3-4, 5-6)
    type(match).objects.filter(pk=match.pk).update(rated=True, ruleset=ruleset)
    return True
