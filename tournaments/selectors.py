"""Reads of tournaments and matches."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from tournaments.models import Match, Tournament


def tournament_progress(tournament: Tournament) -> dict[str, int]:
    counts = tournament.matches.aggregate(
        total=Count("id"),
        finished=Count("id", filter=Q(status=Match.Status.FINISHED)),
        failed=Count("id", filter=Q(status=Match.Status.FAILED)),
        running=Count("id", filter=Q(status=Match.Status.RUNNING)),
    )
    counts["done"] = counts["finished"] + counts["failed"]
    return counts


def tournament_standings(tournament: Tournament) -> list[dict]:
    """Entries with their current rating and their results in this tournament, best first.

    ``games``: rated games of the version in all (every tournament: what its rating rests on);
    ``matches``, ``wins``, ``average_place``: its finished matches in this tournament (place 1 = first).
    """
    rows = []
    for entry in tournament.entry_set.select_related("bot_version__bot__owner", "bot_version__rating"):
        version = entry.bot_version
        seats = version.seats.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
        ranks = list(seats.values_list("rank", flat=True))
        rating = getattr(version, "rating", None)
        rows.append({
            "bot_version": version,
            "label": version.label,
            "mu": rating.mu if rating else None,
            "sigma": rating.sigma if rating else None,
            "conservative": rating.conservative if rating else None,
            "games": rating.games if rating else 0,
            "matches": len(ranks),
            "wins": sum(1 for r in ranks if r == 0),
            "average_place": (sum(ranks) / len(ranks) + 1) if ranks else None,  # seat ranks are 0-based
        })
    rows.sort(key=lambda r: (r["conservative"] is None, -(r["conservative"] or 0), r["label"]))
    return rows


def matches_of(tournament: Tournament) -> QuerySet[Match]:
    return tournament.matches.prefetch_related("seats__bot_version__bot__owner").order_by("id")


def public_log(log: dict) -> dict:
    """The match log without the bots' stderr (that is for their owners only)."""
    data = {k: v for k, v in log.items() if k != "stderr"}
    data["faults"] = [{k: v for k, v in f.items() if k != "stderr_tail"} for f in log.get("faults", [])]
    return data
