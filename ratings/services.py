"""Rating updates: TrueSkill over the ranks of all seats, exactly once per match, one match at a time."""
from __future__ import annotations

from functools import cache
from typing import NamedTuple

import trueskill
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from arena.bulk import update_rows
from ratings.brackets import rate_bracket
from ratings.models import GameLock, Rating, RatingChange

# Games have ties (shared ranks), so the draw probability is not zero.
MU, SIGMA, BETA, TAU, DRAW_PROBABILITY = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300, 0.05


@cache
def environment() -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY,
                               backend=None)


def lock_game(game: str) -> GameLock:
    """Take the per-game rating lock for the rest of the current transaction (rating writes other than
    a match's: those take it with ``take_rating_turn``).

    PostgreSQL: a row lock (SELECT ... FOR UPDATE). SQLite: the IMMEDIATE transaction already holds the
    database's write lock, so every write transaction is serialized anyway.
    """
    lock = GameLock.objects.select_for_update().filter(game=game).first()
    if lock is None:  # the game's first rated match
        GameLock.objects.get_or_create(game=game)
        lock = GameLock.objects.select_for_update().get(game=game)
    return lock


def take_rating_turn(game: str) -> int:
    """Lock the game's ratings for the rest of the current transaction and take the next number in its
    rating order, in one statement (``UPDATE ... RETURNING`` on the game's lock row: the row lock and the
    increment at once). PostgreSQL: the row lock serializes the game's rating writers; SQLite: the
    IMMEDIATE transaction already holds the database's write lock. A caller that then rates nothing gives
    the number back (or rolls its transaction back)."""
    table = connection.ops.quote_name(GameLock._meta.db_table)
    for _ in range(2):
        if connection.features.can_return_columns_from_insert:  # RETURNING (PostgreSQL, SQLite >= 3.35)
            with connection.cursor() as cursor:
                cursor.execute(f"UPDATE {table} SET sequence = sequence + 1 WHERE game = %s RETURNING sequence", [game])
                row = cursor.fetchone()
        else:
            row = (GameLock.objects.filter(game=game).update(sequence=F("sequence") + 1)
                   and GameLock.objects.filter(game=game).values_list("sequence").first())
        if row:
            return row[0]
        GameLock.objects.get_or_create(game=game)  # the game's first rated match
    raise RuntimeError(f"no rating lock row for {game}")


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

    Must run inside the transaction that marks the match finished. Whether a match may be rated at all
    (a rated tournament, a rated ruleset) is the caller's decision.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("rate_match must run inside the transaction that marks the match finished")
    sequence = take_rating_turn(match.game)  # the game's lock first: one match at a time
    # Marking it rated is the exactly-once check itself: only one transaction changes the row.
    if not type(match).objects.filter(pk=match.pk, rated=False).update(rated=True, ruleset=ruleset):
        GameLock.objects.filter(game=match.game).update(sequence=F("sequence") - 1)  # the turn goes back
        return False
    seats = list(match.seats.order_by("seat").values_list("bot_version_id", "rank"))
    apply_rating(sequence, match.pk, match.game, ruleset, seats)
    return True


class SeatResult(NamedTuple):
    """A seat's bot version and rank (0 = first), as the rating update reads them."""

    bot_version_id: int
    rank: int


def apply_rating(sequence: int, match_id: int, game: str, ruleset: str, seats: list[tuple[int, int]]) -> None:
    """The TrueSkill update of one match: ``seats`` are (bot version id, rank) in seat order.

    The caller holds the game's lock, took ``sequence`` (``take_rating_turn``) and marked the match rated
    in this transaction (so it runs once per match). A fixed number of statements whatever the history:
    the ratings read in one, the new ones created in one, the changes inserted in one, the ratings
    updated in one; then the player-count bracket's ratings (ratings.brackets).
    """
    env = environment()
    versions = [version for version, _rank in seats]
    # Fresh values under the lock: every writer of this game's ratings holds it.
    known = {r.bot_version_id: r for r in Rating.objects.filter(bot_version_id__in=versions, ruleset=ruleset)}
    missing = [Rating(bot_version_id=v, ruleset=ruleset, game=game, mu=env.mu, sigma=env.sigma)
               for v in dict.fromkeys(versions) if v not in known]
    if missing:
        Rating.objects.bulk_create(missing)
        if any(r.pk is None for r in missing):  # backends that do not return ids from bulk_create
            missing = list(Rating.objects.filter(bot_version_id__in=[r.bot_version_id for r in missing],
                                                 ruleset=ruleset))
        known.update((r.bot_version_id, r) for r in missing)
    ratings = [known[v] for v in versions]
    ranks = [rank for _version, rank in seats]
    new = env.rate([(env.create_rating(r.mu, r.sigma),) for r in ratings], ranks=ranks)
    RatingChange.objects.bulk_create([
        RatingChange(rating=rating, match_id=match_id, sequence=sequence, rank=rank,
                     mu_before=rating.mu, sigma_before=rating.sigma, mu_after=after.mu, sigma_after=after.sigma)
        for rating, rank, (after,) in zip(ratings, ranks, new)
    ])
    now = timezone.now()
    for rating, (after,) in zip(ratings, new):
        rating.mu, rating.sigma, rating.games, rating.updated_at = after.mu, after.sigma, rating.games + 1, now
    update_rows(Rating, "id", {r.pk: {"mu": r.mu, "sigma": r.sigma, "updated_at": now} for r in ratings},
                increment=("games",))
    # The leaderboard of its player count (2, 3-4, 5-6).
    rate_bracket(game, ruleset, [SeatResult(version, rank) for version, rank in seats], env)
