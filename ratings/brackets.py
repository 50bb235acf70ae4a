"""Player-count brackets: 2 players, 3-4, 5-6 play differently, so each has its own leaderboard as well as
the overall one. The live bracket ratings are updated by ``rate_match`` with the overall ones."""
from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from arena.bulk import update_rows
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


def rate_bracket(game: str, ruleset: str, seats: Sequence, env) -> None:
    """Apply the TrueSkill update of one rated match (its finished ``seats``, in seat order) to the ratings of
    its player-count bracket. Runs inside ``rate_match``, under the game's rating lock."""
    bracket = bracket_of(len(seats))
    if bracket is None:
        return
    versions = [s.bot_version_id for s in seats]
    known = {r.bot_version_id: r for r in
             BracketRating.objects.filter(bot_version_id__in=versions, ruleset=ruleset, bracket=bracket)}
    ratings = [known.get(v) or BracketRating(bot_version_id=v, game=game, ruleset=ruleset, bracket=bracket,
                                             mu=env.mu, sigma=env.sigma) for v in versions]
    before = [(r.mu, r.sigma) for r in ratings]  # read before any update: a version seated twice counts once
    new = env.rate([(env.create_rating(mu, sigma),) for mu, sigma in before], ranks=[s.rank for s in seats])
    changed = {}
    for rating, (after,) in zip(ratings, new):
        rating.mu, rating.sigma = after.mu, after.sigma
        changed[rating.bot_version_id] = rating  # a version seated twice: the last seat's update, as rate_match
    now = timezone.now()
    for rating in changed.values():
        rating.games, rating.updated_at = rating.games + 1, now
    # Two writes at most, whatever the table size: the new ratings, then the known ones.
    new_ones = [r for r in changed.values() if r.pk is None]
    if new_ones:
        BracketRating.objects.bulk_create(new_ones)
    update_rows(BracketRating, "id", {r.pk: {"mu": r.mu, "sigma": r.sigma, "games": r.games, "updated_at": now}
                                      for r in changed.values() if r.pk is not None})
