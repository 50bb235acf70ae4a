"""Open results: every rated match and the ratings, as JSON lines or CSV, streamed.

Matches are read in keyset pages (``id > last``, ``CHUNK`` at a time, seats prefetched per page), so an
export of any size holds one page in memory. Each match carries its rating ``sequence`` (the order the
ratings were applied per game): sorting by it replays the history exactly.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from itertools import islice

from django.db.models import Count, F, Max, OuterRef, Subquery, Value

from infra.caching import cache_get, cache_set
from bots.models import BotVersion
from ratings.brackets import ALL
from ratings.models import BracketRating, ModelRating, Rating, RatingChange
from tournaments.models import Match, MatchSeat

CHUNK = 500
#: A ratings export is kept this long at most (a new stamp replaces it before).
RATINGS_CACHE_SECONDS = 3600
FORMATS = ("jsonl", "csv")
MATCH_COLUMNS = ["match", "sequence", "game", "ruleset", "tournament", "finished_at", "moves", "options",
                 "players", "seat", "bot_version", "bot", "place", "score"]
RATING_COLUMNS = ["game", "ruleset", "players", "bot_version", "bot", "mu", "sigma", "conservative", "games"]


def rated_matches(game: str | None = None, ruleset: str | None = None) -> Iterator[dict]:
    """Every rated match (of ``game``, of ``ruleset``) as a plain record, in id order, streamed by keyset.

    Plain rows (no model instances): one query for a page of matches, one for their seats, and the labels of
    bot versions not seen before (kept: there are few versions and many matches)."""

    sequence = RatingChange.objects.filter(match=OuterRef("pk")).values("sequence")[:1]
    qs = Match.objects.filter(rated=True)
    if game is not None:
        qs = qs.filter(game=game)
    if ruleset is not None:
        qs = qs.filter(ruleset=ruleset)
    fields = ("pk", "sequence", "game", "ruleset", "tournament_id", "finished_at", "num_moves", "options")
    labels: dict[int, str] = {}
    last = 0
    while True:
        page = list(qs.filter(pk__gt=last).annotate(sequence=Subquery(sequence)).order_by("pk").values(*fields)[:CHUNK])
        if not page:
            return
        seats: dict[int, list] = {}
        for row in (MatchSeat.objects.filter(match_id__in=[m["pk"] for m in page]).order_by("match_id", "seat")
                    .values_list("match_id", "seat", "bot_version_id", "rank", "score")):
            seats.setdefault(row[0], []).append(row[1:])
        unseen = {v for rows in seats.values() for _, v, _, _ in rows} - labels.keys()
        if unseen:
            labels |= {v.pk: v.label for v in BotVersion.objects.filter(pk__in=unseen).select_related("bot__owner")}
        for m in page:
            yield {
                "match": m["pk"], "sequence": m["sequence"], "game": m["game"], "ruleset": m["ruleset"],
                "tournament": m["tournament_id"],
                "finished_at": m["finished_at"].isoformat() if m["finished_at"] else None,
                "moves": m["num_moves"], "options": m["options"],
                "seats": [{"seat": seat, "bot_version": v, "bot": labels[v],
                           "place": rank + 1 if rank is not None else None, "score": score}
                          for seat, v, rank, score in seats.get(m["pk"], [])],
            }
        last = page[-1]["pk"]


def match_rows(record: dict) -> Iterator[dict]:
    """A match record as flat rows, one per seat (the CSV shape); options as a JSON string."""
    for seat in record["seats"]:
        yield {**{k: record[k] for k in ("match", "sequence", "game", "ruleset", "tournament", "finished_at",
                                          "moves")},
               "options": json.dumps(record["options"], sort_keys=True), "players": len(record["seats"]), **seat}


def ratings(game: str | None = None, ruleset: str | None = None, model: str | None = None) -> Iterator[dict]:
    """The live ratings, overall (players "all") then per player-count bracket, as plain records; with
    ``model``, the ratings ``recompute_ratings`` computed under that model instead."""
    sources = ((Rating.objects.all(), None), (BracketRating.objects.all(), "bracket")) if model is None else (
        (ModelRating.objects.filter(model=model), "bracket"),)
    fields = ("game", "ruleset", "bot_version_id", "bot_version__kind", "bot_version__bot__owner__username",
              "bot_version__bot__name", "bot_version__number", "mu", "sigma", "games")
    for qs, bracket in sources:
        qs = qs.filter(games__gt=0).order_by("pk")
        if game is not None:
            qs = qs.filter(game=game)
        if ruleset is not None:
            qs = qs.filter(ruleset=ruleset)
        for r in qs.values(*fields, players=F(bracket) if bracket else Value(ALL)).iterator(chunk_size=CHUNK):
            yield {"game": r["game"], "ruleset": r["ruleset"], "players": r["players"],
                   "bot_version": r["bot_version_id"],
                   "bot": BotVersion.make_label(r["bot_version__kind"], r["bot_version__bot__owner__username"],
                                                r["bot_version__bot__name"], r["bot_version__number"]),
                   "mu": r["mu"], "sigma": r["sigma"], "conservative": r["mu"] - 3 * r["sigma"], "games": r["games"]}


def batched(items: Iterable, n: int) -> Iterator[list]:
    """Lists of ``n`` items in order (the last may be shorter); itertools.batched from Python 3.12 on."""
    items = iter(items)
    while batch := list(islice(items, n)):
        yield batch


def ratings_stamp(game: str | None = None, ruleset: str | None = None, model: str | None = None) -> tuple:
    """A stamp that changes whenever one of these ratings changes, is added or goes: per table its rows, the
    highest id and the latest change (a rated match moves ``updated_at``; a recompute writes new rows)."""
    sources = ((Rating.objects.all(), "updated_at"), (BracketRating.objects.all(), "updated_at")) if model is None \
        else ((ModelRating.objects.filter(model=model), "computed_at"),)
    stamp = []
    for qs, changed in sources:
        if game is not None:
            qs = qs.filter(game=game)
        if ruleset is not None:
            qs = qs.filter(ruleset=ruleset)
        row = qs.aggregate(n=Count("id"), last=Max("id"), at=Max(changed))
        stamp.append((row["n"], row["last"], row["at"].isoformat() if row["at"] else None))
    return tuple(stamp)


def jsonl(records: Iterable[dict]) -> Iterator[str]:
    """One JSON object per line, in chunks of ``CHUNK`` lines (a response writes each chunk at once)."""
    for batch in batched(records, CHUNK):
        yield "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in batch)


def csv_lines(rows: Iterable[dict], columns: list[str]) -> Iterator[str]:
    """CSV text with a header line, in chunks of ``CHUNK`` rows."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="raise")
    writer.writeheader()
    for batch in batched(rows, CHUNK):
        writer.writerows(batch)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


def export(what: str, fmt: str, game: str | None = None, ruleset: str | None = None,
           model: str | None = None) -> Iterator[str]:
    """The export ``what`` ("matches" or "ratings") in ``fmt`` ("jsonl" or "csv"), as a stream of text;
    ``model``: the ratings recomputed under that model rather than the live ones."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if what == "matches":
        records = rated_matches(game, ruleset)
        if fmt == "jsonl":
            return jsonl(records)
        return csv_lines((row for record in records for row in match_rows(record)), MATCH_COLUMNS)
    if what == "ratings":
        # Ratings change only when a match is rated (or recomputed): the text is kept under their stamp.
        key = "export:" + hashlib.sha1(repr((fmt, game, ruleset, model, ratings_stamp(game, ruleset, model)))
                                       .encode()).hexdigest()
        text = cache_get(key)
        if text is None:
            records = ratings(game, ruleset, model)
            text = "".join(jsonl(records) if fmt == "jsonl" else csv_lines(records, RATING_COLUMNS))
            cache_set(key, text, RATINGS_CACHE_SECONDS)
        return iter([text])
    raise ValueError(f"unknown export {what!r}; exports: matches, ratings")
