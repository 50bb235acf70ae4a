"""Player-count brackets: 2 players, 3-4, 5-6 play differently, so each has its own leaderboard as well as
the overall one. The live bracket ratings are updated with the overall ones (ratings.services)."""
from __future__ import annotations

from collections.abc import Sequence

from infra.bulk import Statement, insert_rows, table, update_rows
from ratings import free_for_all
from ratings.models import BracketRating

ALL = "all"
#: Bracket name -> the player counts it covers.
BRACKETS: dict[str, tuple[int, ...]] = {"2": (2,), "3-4": (3, 4), "5-6": (5, 6)}


def bracket_of(players: int) -> str | None:
    """The bracket of a table of ``players`` seats (None outside 2-6)."""
    return next((name for name, counts in BRACKETS.items() if players in counts), None)


def brackets_for(player_counts: Sequence[int]) -> list[str]:
    """The brackets a ruleset played at these player counts has, in order."""
    return [name for name, counts in BRACKETS.items() if set(counts) & set(player_counts)]


def bracket_read(ruleset: str, players: int, version_ids: Sequence[int]) -> Statement | None:
    """The read of these versions' ratings in the bracket of a table of ``players`` (None outside 2-6): rows of
    (id, bot_version_id, mu, sigma, games), the columns of ``ratings.services.read_ratings``."""
    bracket = bracket_of(players)
    if bracket is None:
        return None
    return (f"SELECT id, bot_version_id, mu, sigma, games FROM {table(BracketRating)} "
            f"WHERE ruleset = %s AND bracket = %s AND bot_version_id IN ({', '.join(['%s'] * len(version_ids))})",
            [ruleset, bracket, *version_ids])


def bracket_writes(game: str, ruleset: str, seats: Sequence, known_rows: Sequence[tuple], env, now) -> list[Statement]:
    """The TrueSkill update of one rated match (its finished ``seats``, in seat order) to the ratings of its
    player-count bracket, as statements: ``known_rows`` are what ``bracket_read`` found. Runs inside the
    match's rating, under the game's rating lock. Two writes at most, whatever the table size: the new
    ratings, then the known ones."""
    bracket = bracket_of(len(seats))
    if bracket is None:
        return []
    known = {version: (pk, mu, sigma, games) for pk, version, mu, sigma, games in known_rows}
    before = [known.get(s.bot_version_id, (None, env.mu, env.sigma, 0)) for s in seats]
    new = free_for_all.rate(env, [(mu, sigma) for _pk, mu, sigma, _games in before], [s.rank for s in seats])
    changed = {}  # a version seated twice: the last seat's update (read before any update), as the overall one
    for seat, (pk, _mu, _sigma, games), after in zip(seats, before, new):
        changed[seat.bot_version_id] = (pk, after.mu, after.sigma, games + 1)
    fresh = [{"bot_version_id": version, "game": game, "ruleset": ruleset, "bracket": bracket, "mu": mu,
              "sigma": sigma, "games": games, "updated_at": now}
             for version, (pk, mu, sigma, games) in changed.items() if pk is None]
    statements = [insert_rows(BracketRating, fresh)] if fresh else []
    known_ones = {pk: {"mu": mu, "sigma": sigma, "games": games, "updated_at": now}
                  for pk, mu, sigma, games in changed.values() if pk is not None}
    if known_ones:
        statements.append(update_rows(BracketRating, "id", known_ones))
    return statements
