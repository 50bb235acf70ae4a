"""Reads of ratings: leaderboards and rating history."""
from __future__ import annotations

from django.db.models import ExpressionWrapper, F, FloatField, QuerySet

from ratings.models import Rating, RatingChange

STANDARD = "standard"


def leaderboard(game: str, ruleset: str = STANDARD) -> QuerySet[Rating]:
    """Ratings of a game under one rated ruleset, best conservative estimate (mu - 3 sigma) first."""
    return (
        Rating.objects.filter(game=game, ruleset=ruleset, games__gt=0)
        .select_related("bot_version__bot__owner")
        .annotate(conservative_score=ExpressionWrapper(F("mu") - 3 * F("sigma"), output_field=FloatField()))
        .order_by("-conservative_score", "-mu", "bot_version_id")
    )


def rating_history(rating: Rating, last: int | None = None) -> list[dict]:
    """The rating after each of its matches, in the order they were applied (``last``: only the latest
    that many, a bounded read however long the history)."""
    changes = RatingChange.objects.filter(rating=rating)
    if last is not None:
        changes = reversed(list(changes.order_by("-sequence")[:last]))
    else:
        changes = changes.order_by("sequence")
    return [
        {"sequence": c.sequence, "match": c.match_id, "place": c.rank + 1, "mu": c.mu_after, "sigma": c.sigma_after,
         "conservative": c.mu_after - 3 * c.sigma_after, "at": c.created_at.isoformat()}
        for c in changes
    ]


def ratings_of(version_ids, ruleset: str) -> dict[int, Rating]:
    """The ratings of these bot versions under ``ruleset``, by version id (unrated versions are absent)."""
    return {r.bot_version_id: r for r in Rating.objects.filter(bot_version_id__in=list(version_ids), ruleset=ruleset)}
