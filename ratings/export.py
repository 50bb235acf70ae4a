"""Open results: every rated match and the ratings, as JSON lines or CSV, streamed.

Matches are read in keyset pages (``id > last``, ``CHUNK`` at a time, seats prefetched per page), so an
export of any size holds one page in memory. Each match carries its rating ``sequence`` (the order the
ratings were applied per game): sorting by it replays the history exactly.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

from django.db.models import OuterRef, Prefetch, Subquery

from ratings.brackets import ALL
from ratings.models import BracketRating, Rating, RatingChange

CHUNK = 500
FORMATS = ("jsonl", "csv")
MATCH_COLUMNS = ["match", "sequence", "game", "ruleset", "tournament", "finished_at", "moves", "options",
                 "players", "seat", "bot_version", "bot", "place", "score"]
RATING_COLUMNS = ["game", "ruleset", "players", "bot_version", "bot", "mu", "sigma", "conservative", "games"]


def rated_matches(game: str | None = None, ruleset: str | None = None) -> Iterator[dict]:
    """Every rated match (of ``game``, of ``ruleset``) as a plain record, in id order, streamed by keyset."""
    from tournaments.models import Match, MatchSeat

    sequence = RatingChange.objects.filter(match=OuterRef("pk")).values("sequence")[:1]
    qs = Match.objects.filter(rated=True)
    if game is not None:
        qs = qs.filter(game=game)
    if ruleset is not None:
        qs = qs.filter(ruleset=ruleset)
    seats = Prefetch("seats", MatchSeat.objects.select_related("bot_version__bot__owner").order_by("seat"))
    last = 0
    while True:
        page = list(qs.filter(pk__gt=last).annotate(sequence=Subquery(sequence)).prefetch_related(seats)
                    .order_by("pk")[:CHUNK])
        if not page:
            return
        for match in page:
            yield match_record(match)
        last = page[-1].pk


def match_record(match) -> dict:
    """One rated match: what it was (game, ruleset, options), who sat where, and how they placed (1 = first)."""
    return {
        "match": match.pk, "sequence": getattr(match, "sequence", None), "game": match.game,
        "ruleset": match.ruleset, "tournament": match.tournament_id,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None, "moves": match.num_moves,
        "options": match.options,
        "seats": [{"seat": s.seat, "bot_version": s.bot_version_id, "bot": s.bot_version.label,
                   "place": s.rank + 1 if s.rank is not None else None, "score": s.score}
                  for s in match.seats.all()],
    }


def match_rows(record: dict) -> Iterator[dict]:
    """A match record as flat rows, one per seat (the CSV shape); options as a JSON string."""
    for seat in record["seats"]:
        yield {**{k: record[k] for k in ("match", "sequence", "game", "ruleset", "tournament", "finished_at",
                                          "moves")},
               "options": json.dumps(record["options"], sort_keys=True), "players": len(record["seats"]), **seat}


def ratings(game: str | None = None, ruleset: str | None = None) -> Iterator[dict]:
    """The live ratings, overall (players "all") then per player-count bracket, as plain records."""
    for model, bracket in ((Rating, None), (BracketRating, "bracket")):
        qs = model.objects.filter(games__gt=0).select_related("bot_version__bot__owner").order_by("pk")
        if game is not None:
            qs = qs.filter(game=game)
        if ruleset is not None:
            qs = qs.filter(ruleset=ruleset)
        for r in qs.iterator(chunk_size=CHUNK):
            yield {"game": r.game, "ruleset": r.ruleset, "players": getattr(r, bracket) if bracket else ALL,
                   "bot_version": r.bot_version_id, "bot": r.bot_version.label, "mu": r.mu, "sigma": r.sigma,
                   "conservative": r.conservative, "games": r.games}


def jsonl(records: Iterable[dict]) -> Iterator[str]:
    """One JSON object per line."""
    for record in records:
        yield json.dumps(record, separators=(",", ":")) + "\n"


def csv_lines(rows: Iterable[dict], columns: list[str]) -> Iterator[str]:
    """CSV text with a header line, one chunk per row."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="raise")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


def export(what: str, fmt: str, game: str | None = None, ruleset: str | None = None) -> Iterator[str]:
    """The export ``what`` ("matches" or "ratings") in ``fmt`` ("jsonl" or "csv"), as a stream of text."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if what == "matches":
        records = rated_matches(game, ruleset)
        if fmt == "jsonl":
            return jsonl(records)
        return csv_lines((row for record in records for row in match_rows(record)), MATCH_COLUMNS)
    if what == "ratings":
        records = ratings(game, ruleset)
        return jsonl(records) if fmt == "jsonl" else csv_lines(records, RATING_COLUMNS)
    raise ValueError(f"unknown export {what!r}; exports: matches, ratings")
