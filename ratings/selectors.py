"""Reads of ratings: leaderboards and rating history."""
from __future__ import annotations

from django.db.models import ExpressionWrapper, F, FloatField, QuerySet

from ratings.brackets import ALL
from ratings.models import BracketRating, ModelRating, Rating, RatingChange

STANDARD = "standard"


def leaderboard(game: str, ruleset: str = STANDARD, players: str | None = None) -> QuerySet[Rating]:
    """Ratings of a game under one rated ruleset, best conservative estimate (mu - 3 sigma) first; with
    ``players`` (a bracket: "2", "3-4", "5-6"), the ratings from that bracket's matches only."""
    model = Rating if players in (None, ALL) else BracketRating
    extra = {} if model is Rating else {"bracket": players}
    return (
        model.objects.filter(game=game, ruleset=ruleset, games__gt=0, **extra)
        .select_related("bot_version__bot__owner")
        .annotate(conservative_score=ExpressionWrapper(F("mu") - 3 * F("sigma"), output_field=FloatField()))
        .order_by("-conservative_score", "-mu", "bot_version_id")
    )


def rating_history(rating: Rating) -> list[dict]:
    """The rating after each of its matches, in the order they were applied."""
    return [
        {"sequence": c.sequence, "match": c.match_id, "place": c.rank + 1, "mu": c.mu_after, "sigma": c.sigma_after,
         "conservative": c.mu_after - 3 * c.sigma_after, "at": c.created_at.isoformat()}
        for c in RatingChange.objects.filter(rating=rating).order_by("sequence")
    ]


def ratings_of(version_ids, ruleset: str) -> dict[int, Rating]:
    """The ratings of these bot versions under ``ruleset``, by version id (unrated versions are absent)."""
    return {r.bot_version_id: r for r in Rating.objects.filter(bot_version_id__in=list(version_ids), ruleset=ruleset)}
