"""Reads of ratings: leaderboards and rating history.

A board holds one row a bot: its newest version rated under the board's ruleset. An older version's rating
stops moving once the bot has a newer one in play, so keeping it would let an author freeze a lucky peak by
uploading the same code again (and again, at each new peak). Its history stays on the bot's page.

Leaderboards and histories change only when a rating changes, so their pages are cached under a stamp of
the board (how many ratings it holds and when the last one changed: ``Rating.updated_at`` moves in the
transaction that rates a match). A new rating, a rated match or a deleted rating gives a new stamp, so a
cached page is never stale, in any process, and nothing has to be invalidated by hand.
"""
from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, ExpressionWrapper, F, FloatField, Max, OuterRef, Q, QuerySet

from infra.caching import cache_get, cache_set
from bots.models import BotVersion
from ratings.brackets import ALL
from ratings.models import PROVISIONAL_SIGMA, BracketRating, ModelRating, Rating, RatingChange


STANDARD = "standard"
#: At most this many points of one rating's history are returned (the first and the last always).
HISTORY_POINTS = int(getattr(settings, "ARENA_HISTORY_POINTS", 100))
#: Cached board pages live this long at most (a new stamp replaces them before).
CACHE_SECONDS = 3600

_SCORE = ExpressionWrapper(F("mu") - 3 * F("sigma"), output_field=FloatField())
_ORDER = ("-conservative_score", "-mu", "bot_version_id")
_ROW_FIELDS = ("bot_version_id", "bot_version__bot_id", "bot_version__number", "bot_version__kind",
               "bot_version__bot__name", "bot_version__bot__owner__username", "ruleset", "mu", "sigma", "games")


def superseded() -> Exists:
    """Whether a rating's bot has a newer version rated under the same ruleset (any rating model's rows: the
    overall ratings decide, so every board of a ruleset drops the same versions)."""
    return Exists(Rating.objects.filter(ruleset=OuterRef("ruleset"), games__gt=0,
                                        bot_version__bot_id=OuterRef("bot_version__bot_id"),
                                        bot_version__number__gt=OuterRef("bot_version__number")))


def _ratings(game: str, ruleset: str, players: str | None) -> QuerySet:
    """The overall ratings of a board, or (``players``: a bracket) that bracket's; superseded versions' too."""
    if players in (None, ALL):
        return Rating.objects.filter(game=game, ruleset=ruleset)
    return BracketRating.objects.filter(game=game, ruleset=ruleset, bracket=players)


def leaderboard(game: str, ruleset: str = STANDARD, players: str | None = None) -> QuerySet:
    """Ratings of a game under one rated ruleset, one a bot (its newest rated version), best conservative
    estimate (mu - 3 sigma) first; with ``players`` (a bracket: "2", "3-4", "5-6"), the ratings from that
    bracket's matches only."""
    return (
        _ratings(game, ruleset, players).filter(~superseded(), games__gt=0)
        .select_related("bot_version__bot__owner")
        .annotate(conservative_score=_SCORE)
        .order_by(*_ORDER)
    )


#: A board's state: it changes whenever one of the board's ratings changes
Stamp = str


def _stamp(row: dict) -> str:
    last = row["last"].isoformat() if row["last"] else "-"
    return f"{connection.settings_dict['NAME']}:{row['total']}:{last}"


#: total and last change whenever a rating of the board does (a version is superseded by its bot's next one's
#: first rated match, which changes that one's rating: the stamp moves then too). No count of the board's rows:
#: that needs the superseded versions left out, a join of every rating; it is cached under the stamp instead.
_STAMP_AGGREGATES = {"total": Count("id"), "last": Max("updated_at")}


def board_stamp(game: str, ruleset: str = STANDARD, players: str | None = None) -> Stamp:
    """A stamp that changes whenever one of the board's ratings changes: one indexed aggregate (two for a
    bracket's board)."""
    stamp = _stamp(_ratings(game, ruleset, players).aggregate(**_STAMP_AGGREGATES))
    if players not in (None, ALL):  # the overall ratings decide which versions are superseded: their stamp too
        return f"{players}:{stamp}:{_stamp(_ratings(game, ruleset, None).aggregate(**_STAMP_AGGREGATES))}"
    return f"{ALL}:{stamp}"


def board_stamps(games, ruleset: str = STANDARD) -> dict[str, Stamp]:
    """:func:`board_stamp` of several games in one query."""
    rows = {r["game"]: r for r in Rating.objects.filter(game__in=list(games), ruleset=ruleset).order_by()
            .values("game").annotate(**_STAMP_AGGREGATES)}
    return {g: f"{ALL}:{_stamp(rows.get(g, {'total': 0, 'last': None}))}" for g in games}


def board_size(game: str, ruleset: str = STANDARD, players: str | None = None, stamp: Stamp | None = None) -> int:
    """The rows on a board (one a bot), counted once per stamp."""
    stamp = stamp or board_stamp(game, ruleset, players)
    key = "board-size:" + hashlib.sha1(repr((game, ruleset, players, stamp)).encode()).hexdigest()
    size = cache_get(key)
    if size is None:
        size = leaderboard(game, ruleset, players).count()
        cache_set(key, size, CACHE_SECONDS)
    return size


def _row(values: dict, place: int) -> dict:
    label = BotVersion.make_label(values["bot_version__kind"], values["bot_version__bot__owner__username"],
                                  values["bot_version__bot__name"], values["bot_version__number"])
    return {"place": place, "bot_version": values["bot_version_id"], "bot": values["bot_version__bot_id"],
            "label": label, "builtin": values["bot_version__kind"] == BotVersion.Kind.BUILTIN,
            "ruleset": values["ruleset"], "mu": values["mu"], "sigma": values["sigma"],
            "conservative": values["mu"] - 3 * values["sigma"], "uncertainty": 3 * values["sigma"],
            "provisional": values["sigma"] > PROVISIONAL_SIGMA, "games": values["games"]}


def leaderboard_rows(game: str, ruleset: str = STANDARD, offset: int = 0, limit: int = 100,
                     search: str = "", history: bool = False, stamp: Stamp | None = None,
                     players: str | None = None) -> dict:
    """One page of a leaderboard as plain rows (``place`` 1 = best), cached until a rating changes:
    ``{"count": rows on the board (or matching ``search``), "rows": [...]}``. ``search`` keeps the bots
    whose name or owner contains it, with their places on the whole board; ``history`` adds each row's
    rating history (capped, see :func:`histories`; overall ratings only). ``players``: a bracket's board.
    ``stamp``: the board's :func:`board_stamp`, if the caller has it."""
    stamp = stamp or board_stamp(game, ruleset, players)
    key = "board:" + hashlib.sha1(repr((game, ruleset, players, stamp, offset, limit, history, search))
                                  .encode()).hexdigest()
    cached = cache_get(key)
    if cached is not None:
        return cached
    board = leaderboard(game, ruleset, players)
    if search:
        # Places on the whole board: the board's order (ids only), then the hits' places in it.
        hits = set(board.filter(Q(bot_version__bot__name__icontains=search)
                                | Q(bot_version__bot__owner__username__icontains=search))
                   .values_list("bot_version_id", flat=True))
        places = [(place, v) for place, v in enumerate(board.values_list("bot_version_id", flat=True), 1) if v in hits]
        size, places = len(places), places[offset:offset + limit]
        values = {v["bot_version_id"]: v for v in board.filter(bot_version_id__in=[v for _, v in places])
                  .values(*_ROW_FIELDS)}
        rows = [_row(values[v], place) for place, v in places]
    else:
        size = board_size(game, ruleset, players, stamp)
        rows = [_row(v, place) for place, v in enumerate(board.values(*_ROW_FIELDS)[offset:offset + limit],
                                                         offset + 1)]
    if history and players in (None, ALL):
        by_rating = histories(Rating.objects.filter(bot_version_id__in=[r["bot_version"] for r in rows],
                                                    ruleset=ruleset).values_list("bot_version_id", "id"))
        for row in rows:
            row["history"] = by_rating.get(row["bot_version"], [])
    result = {"count": size, "rows": rows}
    cache_set(key, result, CACHE_SECONDS)
    return result


def _iso(value) -> str:
    if isinstance(value, str):  # SQLite hands raw timestamps (UTC) to a plain cursor
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.isoformat()


def histories(version_and_rating_ids, max_points: int = HISTORY_POINTS) -> dict[int, list[dict]]:
    """Rating histories by bot version id, each downsampled in the database to at most ``max_points``
    evenly spaced points that keep the first and the last: one query for all of them."""
    rating_of = {rating_id: version_id for version_id, rating_id in version_and_rating_ids}
    out: dict[int, list[dict]] = {v: [] for v in rating_of.values()}
    if not rating_of:
        return out
    max_points = max(3, max_points)
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    marks = ", ".join(["%s"] * len(rating_of))
    # Keep every step-th change (step = ceil((n - 1) / (max_points - 2))) and the last: at most max_points.
    sql = (f"SELECT rating_id, sequence, match_id, rank, mu_after, sigma_after, created_at FROM ("
           f"SELECT c.*, ROW_NUMBER() OVER (PARTITION BY rating_id ORDER BY sequence) AS rn, "
           f"COUNT(*) OVER (PARTITION BY rating_id) AS cnt FROM {table} c WHERE rating_id IN ({marks})) t "
           f"WHERE cnt <= %s OR rn = cnt OR (rn - 1) %% ((cnt - 2) / %s + 1) = 0 ORDER BY rating_id, sequence")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*rating_of, max_points, max_points - 2])
        for rating_id, sequence, match_id, rank, mu, sigma, at in cursor.fetchall():
            out[rating_of[rating_id]].append({"sequence": sequence, "match": match_id, "place": rank + 1, "mu": mu,
                                              "sigma": sigma, "conservative": mu - 3 * sigma, "at": _iso(at)})
    return out


def rating_history(rating: Rating, last: int | None = None, max_points: int | None = HISTORY_POINTS) -> list[dict]:
    """The rating after each of its matches, in the order they were applied: downsampled to at most
    ``max_points`` points, first and last kept (``None``: every point); ``last``: instead, only the latest
    that many, every one (a bounded read however long the history). Kept in the cache until the rating
    changes (its games and ``updated_at`` are part of the key)."""
    if last is None and max_points is not None:
        return histories([(rating.bot_version_id, rating.pk)], max_points)[rating.bot_version_id]
    key = f"history:{rating.pk}:{rating.games}:{rating.updated_at.isoformat()}:{last}:{max_points}"
    cached = cache_get(key)
    if cached is not None:
        return cached
    changes = RatingChange.objects.filter(rating=rating).values_list("sequence", "match_id", "rank", "mu_after",
                                                                   "sigma_after", "created_at")
    if last is not None:
        changes = reversed(list(changes.order_by("-sequence")[:last]))
    else:
        changes = changes.order_by("sequence")
    result = [{"sequence": sequence, "match": match, "place": rank + 1, "mu": mu, "sigma": sigma,
               "conservative": mu - 3 * sigma, "at": at.isoformat()} for sequence, match, rank, mu, sigma, at in changes]
    cache_set(key, result, CACHE_SECONDS)
    return result


def ratings_of(version_ids, ruleset: str) -> dict[int, Rating]:
    """The ratings of these bot versions under ``ruleset``, by version id (unrated versions are absent)."""
    return {r.bot_version_id: r for r in Rating.objects.filter(bot_version_id__in=list(version_ids), ruleset=ruleset)}


def model_leaderboard(model: str, game: str, ruleset: str = STANDARD, players: str | None = None) -> QuerySet:
    """Ratings recomputed under ``model`` (``recompute_ratings``), best conservative estimate first (Elo:
    its rating, sigma being 0); one row a bot, as on the live board."""
    return (
        ModelRating.objects.filter(~superseded(), model=model, game=game, ruleset=ruleset, bracket=players or ALL,
                                   games__gt=0)
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


def _model_stamp(game: str, ruleset: str, players: str | None) -> str:
    """A stamp of the recomputed boards: ``recompute_ratings`` replaces a model's rows, giving new ids."""
    row = (ModelRating.objects.filter(model__in=ModelRating.Model.values, game=game, ruleset=ruleset,
                                      bracket=players or ALL)
           .aggregate(n=Count("id"), last=Max("id"), at=Max("computed_at")))
    return f"{row['n']}:{row['last']}:{row['at'].isoformat() if row['at'] else '-'}"


def model_comparison(game: str, ruleset: str = STANDARD, players: str | None = None, limit: int = 100) -> dict:
    """The live TrueSkill ranking beside the rankings recomputed under each model: per bot its place (1 =
    best) under each, and Spearman's correlation of each model's ranking with the live one (over the bots
    both rank). Rows: the live leaderboard's first ``limit`` bots, then bots only the models rank.

    Rankings are read as ids and only the shown rows' labels are fetched; the result is cached under the
    stamps of the live board and of the recomputed ones, so it is never stale."""
    key = "compare:" + hashlib.sha1(repr((game, ruleset, players, limit, board_stamp(game, ruleset, players),
                                          _model_stamp(game, ruleset, players))).encode()).hexdigest()
    cached = cache_get(key)
    if cached is not None:
        return cached
    ids = {"live": list(leaderboard(game, ruleset, players).values_list("bot_version_id", flat=True))}
    for model in ModelRating.Model.values:
        ranked = list(model_leaderboard(model, game, ruleset, players).values_list("bot_version_id", flat=True))
        if ranked:
            ids[model] = ranked
    places = {name: {pk: n for n, pk in enumerate(order, 1)} for name, order in ids.items()}
    order = list(dict.fromkeys([*ids["live"], *(pk for name in ids for pk in ids[name])]))[:limit]
    labels = {v["pk"]: v for v in BotVersion.objects.filter(pk__in=order)
              .values("pk", "bot_id", "kind", "bot__owner__username", "bot__name", "number")}
    rows = [{"bot_version": pk, "bot": labels[pk]["bot_id"],
             "label": BotVersion.make_label(labels[pk]["kind"], labels[pk]["bot__owner__username"],
                                            labels[pk]["bot__name"], labels[pk]["number"]),
             "places": {name: places[name].get(pk) for name in ids}} for pk in order]
    result = {"models": list(ids), "rows": rows,
              "correlation": {name: spearman(ids["live"], ids[name]) for name in ids if name != "live"}}
    cache_set(key, result, CACHE_SECONDS)
    return result
