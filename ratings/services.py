"""Rating updates: TrueSkill over the ranks of all seats, exactly once per match, one match at a time."""
from __future__ import annotations

from functools import cache
from typing import NamedTuple, Sequence

import trueskill

from django.db import connection, transaction
from django.utils import timezone

from infra.bulk import Result, Statement, insert_rows, run_statements, table, update_rows
from ratings import free_for_all
from ratings.brackets import bracket_of, bracket_read, bracket_writes
from ratings.models import BracketRating, GameLock, Rating, RatingChange

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


def rating_turn(game: str, condition: Statement | None = None) -> list[Statement]:
    """The statements that lock the game's ratings for the rest of the current transaction and take the next
    number in its rating order (if ``condition``, SQL with its parameters, holds): an ``UPDATE`` of the game's
    lock row (the row lock and the increment at once), then the read of the number taken. PostgreSQL: the
    row lock serializes the game's rating writers; SQLite: the IMMEDIATE transaction already holds the
    database's write lock. The update changes no row if the game has no lock row yet (its first rated match:
    ``take_rating_turn`` creates it)."""
    cond, params = condition or ("", [])
    return [(f"UPDATE {table(GameLock)} SET sequence = sequence + 1 WHERE game = %s" + (f" AND {cond}" if cond else ""),
             [game, *params]),
            (f"SELECT sequence FROM {table(GameLock)} WHERE game = %s", [game])]


def take_rating_turn(game: str) -> int:
    """Lock the game's ratings for the rest of the current transaction and take the next number in its
    rating order (``rating_turn``), creating the game's lock row on its first rated match. A caller that
    then rates nothing gives the number back (or rolls its transaction back)."""
    for _ in range(2):
        turn, number = run_statements(rating_turn(game))
        if turn.rowcount:
            return number.rows[0][0]
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
    (a rated tournament, a rated ruleset) is the caller's decision. A fixed number of statements whatever
    the history, in two round trips on PostgreSQL (marking the match rated with the game's lock and turn,
    and the reads of the seats and their ratings; then the writes), four elsewhere.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("rate_match must run inside the transaction that marks the match finished")
    if connection.vendor == "postgresql":
        return _rate_match_in_two(match, ruleset)
    # Marking it rated is the exactly-once check itself: only one transaction changes the row. The match row
    # first, then the game's lock, as the match pipeline (tournaments.running.pipeline) takes them.
    marked, = run_statements([(f"UPDATE {table(type(match))} SET rated = %s, ruleset = %s WHERE id = %s AND rated = %s",
                               [True, ruleset, match.pk, False])])
    if not marked.rowcount:
        return False
    turn, number, seats = run_statements(rating_turn(match.game) + [_seats_read(match)])
    sequence = number.rows[0][0] if turn.rowcount else take_rating_turn(match.game)
    apply_rating(sequence, match.pk, match.game, ruleset, seats.rows)
    return True


def _seats_read(match) -> Statement:
    return f"SELECT bot_version_id, rank FROM {table(match.seats.model)} WHERE match_id = %s ORDER BY seat", [match.pk]


def _rate_match_in_two(match, ruleset: str) -> bool:
    """``rate_match`` on PostgreSQL: one statement marks the match rated and, only if it did, takes the game's
    lock and turn (a data-modifying CTE); the reads after it (the seats, their overall ratings and their
    ratings in every bracket, by the match's id) take their snapshots once it holds the lock, so they see
    what the lock's previous holder committed. Then the writes: two round trips."""
    versions = f"bot_version_id IN (SELECT bot_version_id FROM {table(match.seats.model)} WHERE match_id = %s)"
    mark, seats, overall, brackets = run_statements([
        (f"WITH marked AS (UPDATE {table(type(match))} SET rated = %s, ruleset = %s WHERE id = %s AND rated = %s "
         f"RETURNING id), turn AS (UPDATE {table(GameLock)} SET sequence = sequence + 1 WHERE game = %s "
         f"AND EXISTS (SELECT 1 FROM marked) RETURNING sequence) "
         f"SELECT (SELECT count(*) FROM marked), (SELECT sequence FROM turn)",
         [True, ruleset, match.pk, False, match.game]),
        _seats_read(match),
        (f"SELECT id, bot_version_id, mu, sigma, games FROM {table(Rating)} WHERE ruleset = %s AND {versions}",
         [ruleset, match.pk]),
        (f"SELECT id, bot_version_id, mu, sigma, games, bracket FROM {table(BracketRating)} "
         f"WHERE ruleset = %s AND {versions}", [ruleset, match.pk]),
    ])
    (marked, sequence), = mark.rows
    if not marked:
        return False
    if sequence is None:  # the game's first rated match: no lock row yet, so nothing was locked when read
        apply_rating(take_rating_turn(match.game), match.pk, match.game, ruleset, seats.rows)
        return True
    bracket = bracket_of(len(seats.rows))
    read = [overall, Result(0, [row[:5] for row in brackets.rows if row[5] == bracket])] if bracket else [overall]
    apply_rating(sequence, match.pk, match.game, ruleset, seats.rows, read=read)
    return True


class SeatResult(NamedTuple):
    """A seat's bot version and rank (0 = first), as the rating update reads them."""

    bot_version_id: int
    rank: int


def read_ratings(ruleset: str, version_ids: Sequence[int]) -> list[Statement]:
    """The reads of these versions' overall ratings under ``ruleset`` and of their bracket's (the bracket of a
    table of ``len(version_ids)`` seats), each row (id, bot_version_id, mu, sigma, games). Placed after the
    game's lock (``rating_turn``): every writer of the game's ratings holds it, so the values are fresh."""
    placeholders = ", ".join(["%s"] * len(version_ids))
    statements = [(f"SELECT id, bot_version_id, mu, sigma, games FROM {table(Rating)} "
                   f"WHERE ruleset = %s AND bot_version_id IN ({placeholders})", [ruleset, *version_ids])]
    bracket = bracket_read(ruleset, len(version_ids), version_ids)
    return statements + [bracket] if bracket else statements


def apply_rating(sequence: int, match_id: int, game: str, ruleset: str, seats: Sequence[tuple[int, int]],
                 read: Sequence[Result] | None = None, commit: bool = False) -> None:
    """The TrueSkill update of one match: ``seats`` are (bot version id, rank) in seat order.

    The caller holds the game's lock, took ``sequence`` (``take_rating_turn``) and marked the match rated
    in this transaction (so it runs once per match). ``read``: the results of ``read_ratings`` if the caller
    ran them after taking the lock (the match pipeline sends them with its store); else they are read here.
    A fixed number of statements whatever the history: the ratings read (overall and bracket), then one
    round trip of writes: the changes inserted, the ratings updated, the bracket's ratings inserted or
    updated. A version's first rated match creates its rating first (one statement more). ``commit``: the
    writes end the caller's transaction (``run_statements``), in the same round trip on PostgreSQL.
    """
    env = environment()
    seats = [SeatResult(version, rank) for version, rank in seats]
    versions = [s.bot_version_id for s in seats]
    results = list(read) if read is not None else run_statements(read_ratings(ruleset, versions))
    known = {row[1]: row for row in results[0].rows}  # bot_version_id -> (id, version, mu, sigma, games)
    missing = [v for v in dict.fromkeys(versions) if v not in known]
    now = timezone.now()
    if missing:  # their first rated match under this ruleset
        fresh = [{"bot_version_id": v, "ruleset": ruleset, "game": game, "mu": env.mu, "sigma": env.sigma,
                  "games": 0, "updated_at": now} for v in missing]
        created, = run_statements([insert_rows(Rating, fresh)] + [read_ratings(ruleset, missing)[0]])[1:]
        known.update((row[1], row) for row in created.rows)
    ratings = [known[v] for v in versions]
    new = free_for_all.rate(env, [(mu, sigma) for _pk, _v, mu, sigma, _games in ratings], [s.rank for s in seats])
    writes = [insert_rows(RatingChange, [
        {"rating_id": pk, "match_id": match_id, "sequence": sequence, "rank": seat.rank, "mu_before": mu,
         "sigma_before": sigma, "mu_after": after.mu, "sigma_after": after.sigma, "created_at": now}
        for (pk, _v, mu, sigma, _games), seat, after in zip(ratings, seats, new)])]
    # A version seated twice: its last seat's values, one more game (one row per rating).
    writes.append(update_rows(Rating, "id", {pk: {"mu": after.mu, "sigma": after.sigma, "updated_at": now}
                                             for (pk, *_), after in zip(ratings, new)}, increment=("games",)))
    # The leaderboard of its player count (2, 3-4, 5-6).
    writes += bracket_writes(game, ruleset, seats, results[1].rows if len(results) > 1 else [], env, now)
    run_statements(writes, commit=commit)
