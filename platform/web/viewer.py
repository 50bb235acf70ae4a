"""The match viewer on the site: who may open which seat's view, and the frames of a stored match
log, built once (engines.view) and cached gzipped (a finished match's log never changes)."""
from __future__ import annotations

import gzip
import json

from django.http import HttpResponse

from infra.caching import cache_get, cache_set
from engines.match import MatchLog
from engines.view import FRAMES_VERSION, match_data, seat_frames
from engines.view.games import data_version, seat_views_public
from tournaments.models import Match
from tournaments.selectors import match_log, public_log

CACHE_SECONDS = 7 * 24 * 3600


class SeatViewRefused(Exception):
    """A seat view the requester may not open (the message says why)."""


def own_seats(match: Match, user) -> set[int]:
    """Seats of ``match`` whose bot ``user`` owns."""
    if not user.is_authenticated:
        return set()
    return set(match.seats.filter(bot_version__bot__owner_id=user.pk).values_list("seat", flat=True))


def allowed_seat_views(match: Match, user) -> list[int]:
    """The seats whose view ``user`` may open: all where the game's seat views reveal nothing
    private (or for staff), else the seats of the user's own bots."""
    seats = range(match.seats.count())
    if seat_views_public(match.game) or (user.is_authenticated and user.is_staff):
        return list(seats)
    return sorted(own_seats(match, user))


def frames_gzip(match: Match, seat: int | None, user) -> bytes:
    """The gzipped JSON the page plays: the whole match (``seat`` None) or one seat's frames.

    Raises ``SeatViewRefused`` for a seat the user may not see, ``ValueError`` for a seat that does not exist.
    """
    if match.status != Match.Status.FINISHED:
        raise LookupError(f"match {match.pk} is {match.status}: it has no log yet")
    if seat is not None:
        seats = match.seats.count()
        if not 0 <= seat < seats:
            raise ValueError(f"no seat {seat}: seats are 0..{seats - 1}")
        if seat not in allowed_seat_views(match, user):
            raise SeatViewRefused(f"seat {seat}'s view of this {match.game} match is private to its bot's owner")
    # The id alone could name another match after a database reset; the log's identity goes with it.
    finished = match.finished_at.isoformat() if match.finished_at else ""
    key = (f"viewer:{FRAMES_VERSION}:{data_version(match.game)}:{match.pk}:{match.game}:{match.seed}:"
           f"{match.num_moves}:{finished}:"
           f"{'spectator' if seat is None else seat}")
    body = cache_get(key)
    if body is None:
        stored = match_log(match)
        if stored is None:
            raise LookupError(f"match {match.pk} has no stored log")
        log = MatchLog.from_dict(public_log(stored))
        data = match_data(log) if seat is None else seat_frames(log, seat)
        body = gzip.compress(json.dumps(data, separators=(",", ":")).encode(), compresslevel=6)
        cache_set(key, body, CACHE_SECONDS)
    return body


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip: named (or ``*``) with a weight above 0. A bare
    substring test would send gzip to ``gzip;q=0``, which says the very opposite."""
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0  # a malformed weight: not a clear yes
        weights[coding.strip().lower()] = weight
    for coding in ("gzip", "x-gzip"):
        if coding in weights:
            return weights[coding] > 0
    return weights.get("*", 0.0) > 0


def gzipped_json(request, body: bytes) -> HttpResponse:
    """``body`` (gzipped JSON) as it is to clients that accept gzip, unpacked for the others."""
    if accepts_gzip(request.headers.get("Accept-Encoding", "")):
        response = HttpResponse(body, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(body), content_type="application/json")
    response["Vary"] = "Accept-Encoding, Cookie"
    return response
