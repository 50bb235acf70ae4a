"""Reads of one bot's record for its page and the API: its recent matches with places, its faults and how
it fares against the bots it meets most.

Every query is bounded and index-friendly at any number of matches: seats are filtered by the bot's
version ids and read newest match first with a limit; match rows are read without their log. Validation
matches are their owner's only (as ``visible_matches`` says), and so are the details of faults.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import QuerySet

from bots.models import Bot
from tournaments.models import Match, MatchSeat
from tournaments.selectors import PUBLIC_FAULT_KEYS

#: Head-to-head and the faults list look at the bot's seats in its most recent matches only.
RECORD_WINDOW = 500
#: The most seats a match has (a tournament seats at most 8): a page of seats can always end a match.
MAX_SEATS = 8
#: Columns of a match that the bot's pages show (never its log).
MATCH_FIELDS = ("id", "purpose", "game", "status", "rated", "ruleset", "finished_at", "tournament__name")
#: Columns of a seat and its bot version that a row shows (never stderr; fault_log only where asked).
SEAT_FIELDS = ("id", "match", "seat", "rank", "score", "faults", "forfeited", "bot_version__number", "bot_version__kind", "bot_version__bot_id", "bot_version__bot__name",
               "bot_version__bot__owner__username")


def is_owner(bot: Bot, user) -> bool:
    return bool(user is not None and user.is_authenticated and user.pk == bot.owner_id)


def bot_seats(bot: Bot, user) -> QuerySet[MatchSeat]:
    """The seats of ``bot``'s versions in the matches ``user`` may see, newest match first. Its owner sees
    the validation matches too; everyone else the tournament matches."""
    version_ids = list(bot.versions.values_list("id", flat=True))
    seats = MatchSeat.objects.filter(bot_version_id__in=version_ids)
    if not is_owner(bot, user):
        seats = seats.filter(match__purpose=Match.Purpose.TOURNAMENT)
    return seats.order_by("-match_id", "seat")


def seat_place(rank: int | None) -> int | None:
    """The 1-based place people read from the engine's 0-based rank."""
    return None if rank is None else rank + 1


@dataclass
class MatchRow:
    """One seat of the bot in one match, with the match and the other seats."""

    match: Match
    seat: MatchSeat
    opponents: list[MatchSeat] = field(default_factory=list)

    @property
    def place(self) -> int | None:
        return seat_place(self.seat.rank)


def match_rows(seats: list[MatchSeat]) -> list[MatchRow]:
    """The rows of these seats (one query for their matches, one for the other seats of those matches)."""
    match_ids = {s.match_id for s in seats}
    matches = Match.objects.select_related("tournament").only(*MATCH_FIELDS).in_bulk(match_ids)
    table = defaultdict(list)
    for other in (MatchSeat.objects.filter(match_id__in=match_ids).select_related("bot_version__bot__owner")
                  .only(*SEAT_FIELDS).order_by("match_id", "seat")):
        table[other.match_id].append(other)
    return [MatchRow(matches[s.match_id], s, [o for o in table[s.match_id] if o.pk != s.pk]) for s in seats]


def recent_matches(bot: Bot, user, before: int | None = None, limit: int = 20) -> tuple[list[MatchRow], int | None]:
    """About ``limit`` of the bot's seats in its most recent matches older than match ``before`` (keyset
    paging: a bounded index range however many matches there are), and the ``before`` of the next page
    (None: no more). A page never splits a match: it ends with every seat of the bot in its last match."""
    seats = bot_seats(bot, user)
    if before is not None:
        seats = seats.filter(match_id__lt=before)
    fetched = list(seats.select_related("bot_version__bot__owner").only(*SEAT_FIELDS)[:limit + MAX_SEATS])
    page = fetched[:limit]
    for seat in fetched[limit:]:
        if seat.match_id != page[-1].match_id:
            break
        page.append(seat)
    following = page[-1].match_id if len(fetched) > len(page) else None
    return match_rows(page), following


def _window(seats: QuerySet[MatchSeat]) -> QuerySet[MatchSeat]:
    """These seats restricted to the bot's most recent ``RECORD_WINDOW`` seats (one indexed lookup)."""
    boundary = seats.values_list("match_id", flat=True)[RECORD_WINDOW - 1:RECORD_WINDOW]
    oldest = next(iter(boundary), None)
    return seats if oldest is None else seats.filter(match_id__gte=oldest)


def recent_faults(bot: Bot, user, limit: int = 30) -> list[dict]:
    """The faults of the bot in its recent matches, newest first: match, seat, version, move (the number
    of the move it happened on, from 1, as the match page's ``?move=`` counts), kind; its owner also gets
    each fault's detail (it may quote what the bot printed)."""
    owner = is_owner(bot, user)
    faulty = _window(bot_seats(bot, user)).filter(faults__gt=0).values(
        "match_id", "seat", "bot_version__number", "fault_log")
    rows: list[dict] = []
    for seat in faulty[:limit]:
        for fault in reversed(seat["fault_log"] or []):
            row = {k: fault[k] for k in PUBLIC_FAULT_KEYS if k in fault}
            row.update(match=seat["match_id"], seat=seat["seat"], version=seat["bot_version__number"],
                       move=fault["move"] + 1)  # the log's move index is 0-based; the viewer's position counts
            if owner:
                row["detail"] = fault.get("detail", "")
            rows.append(row)
            if len(rows) == limit:
                return rows
    return rows


@dataclass
class HeadToHead:
    """The bot against one opponent bot over the matches they played together (finished ones)."""

    opponent: Bot
    matches: int
    above: int  # this bot placed better
    below: int
    ties: int


def head_to_head(bot: Bot, user, top: int = 10) -> list[HeadToHead]:
    """The ``top`` opponents the bot met most in its recent matches, with how often it placed above them.
    In a match where a bot holds several seats its best place counts."""
    mine = _window(bot_seats(bot, user)).filter(rank__isnull=False).values_list("match_id", "rank")
    best: dict[int, int] = {}
    for match_id, rank in mine:
        best[match_id] = min(rank, best.get(match_id, rank))
    if not best:
        return []
    theirs: dict[int, dict[int, int]] = defaultdict(dict)  # opponent bot -> match -> its best rank
    others = (MatchSeat.objects.filter(match_id__in=list(best), rank__isnull=False)
              .exclude(bot_version__bot_id=bot.pk).values_list("match_id", "bot_version__bot_id", "rank"))
    for match_id, other, rank in others:
        theirs[other][match_id] = min(rank, theirs[other].get(match_id, rank))
    frequent = sorted(theirs, key=lambda b: (-len(theirs[b]), b))[:top]
    bots = Bot.objects.select_related("owner").in_bulk(frequent)
    rows = []
    for other in frequent:
        pairs = [(best[m], r) for m, r in theirs[other].items()]
        rows.append(HeadToHead(opponent=bots[other], matches=len(pairs), above=sum(a < b for a, b in pairs),
                               below=sum(a > b for a, b in pairs), ties=sum(a == b for a, b in pairs)))
    return rows
