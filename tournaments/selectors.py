"""Reads of tournaments and matches."""
from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet, Sum

from bots.models import BotVersion
from engines.logcodec import decode
from engines.versus import score_series
from ratings.selectors import STANDARD, ratings_of
from tournaments.models import Entry, Match, MatchLog, MatchSeat, Tournament


def tournament_progress(tournament: Tournament) -> dict[str, int]:
    counts = tournament.matches.aggregate(
        total=Count("id"),
        finished=Count("id", filter=Q(status=Match.Status.FINISHED)),
        failed=Count("id", filter=Q(status=Match.Status.FAILED)),
        running=Count("id", filter=Q(status=Match.Status.RUNNING)),
    )
    counts["done"] = counts["finished"] + counts["failed"]
    return counts


def seeding_ruleset(tournament: Tournament) -> str:
    """The ratings a tournament is seeded and shown with: its ruleset's, or the standard ones for custom rules."""
    return tournament.ruleset or STANDARD


def tournament_standings(tournament: Tournament) -> list[dict]:
    """Entries with their current rating (of the tournament's ruleset) and their results here, best first.

    ``games``: rated games of the version under that ruleset, in all tournaments (what its rating rests on);
    ``matches``, ``wins``, ``average_place``: its finished matches in this tournament (place 1 = first).
    A duplicate tournament adds ``series`` (complete series played) and ``series_won`` (see tournament_series).
    """
    rows = []
    entries = list(tournament.entry_set.select_related("bot_version__bot__owner"))
    ratings = ratings_of([e.bot_version_id for e in entries], seeding_ruleset(tournament))
    # Every entry's results here in one aggregate over the tournament's finished matches' seats.
    results = {r["bot_version_id"]: r for r in MatchSeat.objects.filter(
        match__tournament=tournament, match__status=Match.Status.FINISHED).values("bot_version_id").annotate(
        n=Count("id"), wins=Count("id", filter=Q(rank=0)), rank_sum=Sum("rank"))}
    for entry in entries:
        version = entry.bot_version
        result = results.get(version.pk, {"n": 0, "wins": 0, "rank_sum": 0})
        rating = ratings.get(version.pk)
        rows.append({
            "bot_version": version,
            "label": version.label,
            "mu": rating.mu if rating else None,
            "sigma": rating.sigma if rating else None,
            "conservative": rating.conservative if rating else None,
            "games": rating.games if rating else 0,
            "matches": result["n"],
            "wins": result["wins"],
            "average_place": (result["rank_sum"] / result["n"] + 1) if result["n"] else None,  # ranks are 0-based
        })
    if tournament.duplicate:
        complete = tournament_series(tournament)
        for row in rows:
            mine = [r for s in complete for r in s["bots"] if r["bot_version"] == row["bot_version"].pk]
            row["series"] = len(mine)
            row["series_won"] = sum(1 for r in mine if r["won"])
    rows.sort(key=lambda r: (r["conservative"] is None, -(r["conservative"] or 0), r["label"]))
    return rows


def entry_labels(tournament_ids) -> dict[int, list[dict]]:
    """The entries of these tournaments as ``{"bot_version", "label"}``, by tournament id: one query of values."""
    out: dict[int, list[dict]] = {}
    rows = (Entry.objects.filter(tournament_id__in=list(tournament_ids)).order_by("id")
            .values_list("tournament_id", "bot_version_id", "bot_version__kind", "bot_version__bot__owner__username",
                         "bot_version__bot__name", "bot_version__number"))
    for tournament_id, version_id, kind, owner, name, number in rows:
        out.setdefault(tournament_id, []).append(
            {"bot_version": version_id, "label": BotVersion.make_label(kind, owner, name, number)})
    return out


def tournament_series(tournament: Tournament) -> list[dict]:
    """The complete series of a duplicate tournament (every rotation finished), in order: per series its
    number, seed and ``bots``: per bot version (best first) its id, label, places (1 = first, in rotation
    order), their sum and average, and whether it won the series (the best average place; a tie shares it)."""
    if not tournament.duplicate:
        return []
    seats = (MatchSeat.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED,
                                      match__series__isnull=False)
             .order_by("match__series", "match_id", "seat")
             .values_list("match__series", "match__seed", "match_id", "bot_version_id", "rank"))
    by_series: dict[int, dict] = {}
    for number, seed, match_id, version, rank in seats:
        series = by_series.setdefault(number, {"series": number, "seed": seed, "matches": set(), "places": {}})
        series["matches"].add(match_id)
        series["places"].setdefault(version, []).append(rank + 1)  # ranks are 0-based
    labels = {e.bot_version_id: e.bot_version.label for e in tournament.entry_set.select_related("bot_version__bot__owner")}
    complete = []
    for s in by_series.values():
        if len(s["matches"]) == tournament.seats_per_match:
            rows = [{"bot_version": v, "label": labels.get(v, ""), **row} for v, row in score_series(s["places"]).items()]
            rows.sort(key=lambda r: (r["average_place"], r["label"]))
            complete.append({"series": s["series"], "seed": s["seed"], "bots": rows})
    return complete


def matches_of(tournament: Tournament) -> QuerySet:
    """The tournament's matches as values for a table (id, status, moves), in order, never their logs; a
    page of them gets its seats from :func:`with_seats`."""
    return tournament.matches.order_by("id").values("id", "status", "num_moves")


def version_labels(version_ids) -> dict[int, str]:
    """The labels of these bot versions, by id: one query of values."""
    rows = (BotVersion.objects.filter(pk__in=list(version_ids))
            .values_list("pk", "kind", "bot__owner__username", "bot__name", "number"))
    return {pk: BotVersion.make_label(kind, owner, name, number) for pk, kind, owner, name, number in rows}


#: The columns of a match the API shows (lists and the match itself), read as values: never the log.
MATCH_FIELDS = ("id", "tournament_id", "purpose", "game", "options", "seed", "series", "status", "attempts",
                "num_moves", "rated", "ruleset", "created_at", "started_at", "finished_at")


#: A seat's columns that may quote what its bot printed: read for the viewer's own seats only.
PRIVATE_SEAT_FIELDS = ("fault_log", "stderr_tail")


def with_seats(matches, labels: dict[int, str] | None = None, viewer=None,
               private: tuple[str, ...] = PRIVATE_SEAT_FIELDS) -> list[dict]:
    """Match rows (values with "id") with their seats in seat order, each ``{"id", "seat", "bot_version",
    "number", "bot", "label", "place", "score", "faults", "forfeited", "fault_log", "stderr_tail"}`` (the
    seat's id, its version's id and number; place 1 = first, None until finished). The fault log and stderr
    tail may quote what the bot printed: those named in ``private`` are read for the seats of ``viewer``'s
    bots only; they are None for every other seat.

    One query for the seats, one for the labels not in ``labels`` (a tournament's page passes its entries':
    they are every seat's), one for the viewer's own seats' details if there are any."""
    rows = list(matches)
    seats: dict[int, list] = {row["id"]: [] for row in rows}
    found = (MatchSeat.objects.filter(match_id__in=list(seats)).order_by("match_id", "seat")
             .values_list("id", "match_id", "seat", "bot_version_id", "bot_version__number", "bot_version__bot_id",
                          "bot_version__bot__owner_id", "rank", "score", "faults", "forfeited"))
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    own: dict[int, dict] = {}
    for pk, match_id, seat, version, number, bot, owner, rank, score, faults, forfeited in found:
        row = {"id": pk, "seat": seat, "bot_version": version, "number": number, "bot": bot,
               "place": None if rank is None else rank + 1, "score": score, "faults": faults,
               "forfeited": forfeited, "fault_log": None, "stderr_tail": None}
        seats[match_id].append(row)
        if owner == viewer_id:
            own[pk] = row
    if own and private:
        for details in MatchSeat.objects.filter(pk__in=list(own)).order_by().values("pk", *private):
            own[details.pop("pk")].update(details)
    labels = dict(labels or {})
    labels |= version_labels({seat["bot_version"] for row in seats.values() for seat in row} - labels.keys())
    for row in rows:
        for seat in seats[row["id"]]:
            seat["label"] = labels[seat["bot_version"]]
        row["seats"] = seats[row["id"]]
    return rows


# What of a fault everyone may see; its detail and stderr tail may quote the bot's output (owner only).
PUBLIC_FAULT_KEYS = ("seat", "move", "kind")


def match_log(match: Match) -> dict | None:
    """The full log of a match (``MatchLog.to_dict()`` as JSON; its stderr and fault details are the
    bots' owners' only: show others ``public_log`` of it), or None before it is stored.

    Every reader of match logs comes here: the log lives in its own table in the compact stored form
    (engines.logcodec), and decoding replays the game. Decoded once per match object."""
    decoded = getattr(match, "_decoded_log", None)
    if decoded is None:
        data = MatchLog.objects.filter(match_id=match.pk).values_list("data", flat=True).first()
        if data is None:
            return None
        data = bytes(data)
        # A replay costs milliseconds (tens for a long game): keep the result a while, keyed by the stored
        # bytes themselves (a log replaced, or an id reused after a database reset, is another key).
        key = f"matchlog:v1:{match.pk}:{hashlib.blake2b(data, digest_size=16).hexdigest()}"
        decoded = cache.get(key)
        if decoded is None:
            decoded = decode(data)
            cache.set(key, decoded, LOG_CACHE_SECONDS)
        match._decoded_log = decoded
    return decoded


LOG_CACHE_SECONDS = 3600


def public_log(log: dict) -> dict:
    """The match log without what the bots printed: no stderr, and of each fault only its seat, move and
    kind (its detail may quote the bot's stdout). The moves and outcome are all a replay needs."""
    data = {k: v for k, v in log.items() if k != "stderr"}
    data["faults"] = [{k: f[k] for k in PUBLIC_FAULT_KEYS if k in f} for f in log.get("faults", [])]
    return data


def visible_matches(user) -> QuerySet[Match]:
    """The matches ``user`` may see: every tournament match, and the validation matches of their own bots
    (a validation match is how the platform judged a new version: for its owner only)."""
    visible = Q(purpose=Match.Purpose.TOURNAMENT)
    if user is not None and user.is_authenticated:
        own = MatchSeat.objects.filter(bot_version__bot__owner=user).values("match_id")
        visible |= Q(purpose=Match.Purpose.VALIDATION, pk__in=own)
    return Match.objects.filter(visible)


def matches_to_play(player) -> int:
    """Matches still to play in the player's running tournaments: what they planned, less what is done."""
    running = Tournament.objects.filter(created_by=player, status=Tournament.Status.RUNNING)
    planned = running.aggregate(n=Sum("planned_matches"))["n"] or 0
    done = Match.objects.filter(tournament__in=running, status__in=Match.DONE).count()
    return max(0, planned - done)
