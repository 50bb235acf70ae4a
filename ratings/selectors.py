"""Reads of ratings: leaderboards and rating history."""
from __future__ import annotations

from django.db.models import ExpressionWrapper, F, FloatField, QuerySet

from ratings.brackets import ALL
from ratings.models import BracketRating, ModelRating, Rating, RatingChange

STANDARD = "standard"


def leaderboard(game: str, ruleset: str = STANDARD, players: str | None = None) -> QuerySet:
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


def model_leaderboard(model: str, game: str, ruleset: str = STANDARD, players: str | None = None) -> QuerySet:
    """Ratings recomputed under ``model`` (``recompute_ratings``), best conservative estimate first (Elo:
    its rating, sigma being 0)."""
    return (
        ModelRating.objects.filter(model=model, game=game, ruleset=ruleset, bracket=players or ALL, games__gt=0)
        .select_related("bot_version__bot__owner")
        .annotate(conservative_score=ExpressionWrapper(F("mu") - 3 * F("sigma"), output_field=FloatField()))
        .order_by("-conservative_score", "-mu", "bot_version_id")
    )


def spearman(first: list, second: list) -> float | None:
    """Spearman's rank correlation of two rankings (lists of ids, best first) over the ids both rank:
    1 = the same order, -1 = reversed; None with fewer than two ids in common."""
    common = set(first) & set(second)
    a = {k: n for n, k in enumerate(x for x in first if x in common)}
    b = {k: n for n, k in enumerate(x for x in second if x in common)}
    n = len(common)
    if n < 2:
        return None
    return 1 - 6 * sum((a[k] - b[k]) ** 2 for k in common) / (n * (n * n - 1))


def model_comparison(game: str, ruleset: str = STANDARD, players: str | None = None, limit: int = 100) -> dict:
    """The live TrueSkill ranking beside the rankings recomputed under each model: per bot its place (1 =
    best) under each, and Spearman's correlation of each model's ranking with the live one (over the bots
    both rank). Rows: the live leaderboard's first ``limit`` bots, then bots only the models rank."""
    rankings = {"live": [r.bot_version for r in leaderboard(game, ruleset, players)]}
    for model in ModelRating.Model.values:
        ranked = [r.bot_version for r in model_leaderboard(model, game, ruleset, players)]
        if ranked:
            rankings[model] = ranked
    ids = {name: [v.pk for v in versions] for name, versions in rankings.items()}
    places = {name: {pk: n for n, pk in enumerate(order, 1)} for name, order in ids.items()}
    versions = {v.pk: v for vs in rankings.values() for v in vs}
    order = list(dict.fromkeys([*ids["live"], *(pk for name in ids for pk in ids[name])]))[:limit]
    rows = [{"bot_version": pk, "bot": versions[pk].bot_id, "label": versions[pk].label,
             "places": {name: places[name].get(pk) for name in rankings}} for pk in order]
    return {"models": list(rankings), "rows": rows,
            "correlation": {name: spearman(ids["live"], ids[name]) for name in rankings if name != "live"}}
