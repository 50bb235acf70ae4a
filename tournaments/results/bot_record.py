"""Reads of one bot's record for its page and the API: its recent matches with places, its faults and how
it fares against the bots it meets most.

Every read is bounded and index-friendly at any number of matches: each version's seats are read newest
match first from the (bot_version, match desc) index with a limit (on PostgreSQL all versions in one
UNION ALL statement), and merged. One query over all versions with ``IN`` would let PostgreSQL walk the
whole match index backwards for a bot whose visible matches are few or old. Match rows are read without
their log. Validation matches are their owner's only (as ``visible_matches`` says), and so are the
details of faults.
"""
from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice

from django.db import connection
from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone

from infra.caching import cache_get, cache_set
from bots.models import Bot, BotVersion
from tournaments.models import Match, MatchSeat
from tournaments.selectors import PUBLIC_FAULT_KEYS, with_seats

#: Head-to-head and the faults list look at the bot's seats in its most recent matches only.
RECORD_WINDOW = 500
#: A bot's faults and head-to-head are counted at most this often (they read up to RECORD_WINDOW seats).
RECORD_SECONDS = 30
#: The most seats a match has (a tournament seats at most 8): a page of seats can always end a match.
MAX_SEATS = 8
#: Columns of a match that the bot's pages show (never its log); its tournament's name comes as well.
BOT_PAGE_MATCH_FIELDS = ("id", "tournament_id", "purpose", "status", "rated", "finished_at")


def is_owner(bot: Bot, user) -> bool:
    return bool(user is not None and user.is_authenticated and user.pk == bot.owner_id)


def seat_place(rank: int | None) -> int | None:
    """The 1-based place people read from the engine's 0-based rank."""
    return None if rank is None else rank + 1


@dataclass
class MatchRow:
    """One seat of the bot in one match, with the match and the other seats, as values: ``match`` has
    BOT_PAGE_MATCH_FIELDS and "tournament_name"; ``seat`` and each of ``opponents`` are seats as
    :func:`tournaments.selectors.with_seats` reads them (the details of faults for the viewer's own seats only)."""

    match: dict
    seat: dict
    opponents: list[dict] = field(default_factory=list)

    @property
    def place(self) -> int | None:
        return self.seat["place"]


@dataclass
class HeadToHead:
    """The bot against one opponent bot over the matches they played together (finished ones)."""

    opponent: Bot
    matches: int
    above: int  # this bot placed better
    below: int
    ties: int


def match_rows(page: list[tuple[int, int]], viewer) -> list[MatchRow]:
    """The rows of these (match id, seat number) pairs: one query for the matches, one for their seats, one
    for the seats' labels (and one for the fault logs of the viewer's own seats, if any; never stderr)."""
    matches = Match.objects.filter(pk__in={match_id for match_id, _ in page}).values(
        *BOT_PAGE_MATCH_FIELDS, tournament_name=F("tournament__name"))
    by_id = {match["id"]: match for match in with_seats(matches, viewer=viewer, private=("fault_log",))}
    rows = []
    for match_id, number in page:
        match = by_id[match_id]
        mine = next(seat for seat in match["seats"] if seat["seat"] == number)
        rows.append(MatchRow(match, mine, [seat for seat in match["seats"] if seat is not mine]))
    return rows


class BotRecord:
    """What ``user`` may see of ``bot``'s matches: its owner sees the validation matches too, everyone
    else the tournament matches."""

    def __init__(self, bot: Bot, user, version_ids: Iterable[int] | None = None):
        self.bot = bot
        self.viewer = user
        self.owner = is_owner(bot, user)
        if version_ids is None:
            version_ids = BotVersion.objects.filter(bot_id=bot.pk).order_by().values_list("id", flat=True)
        self.version_ids = list(version_ids)

    def seats_of(self, version_id: int, before: int | None = None, oldest: int | None = None) -> QuerySet[MatchSeat]:
        """One version's visible seats in matches older than ``before`` and from ``oldest`` on, newest match
        first (an index range of (bot_version, match desc))."""
        span = {k: v for k, v in (("lt", before), ("gte", oldest)) if v is not None}
        seats = MatchSeat.objects.filter(bot_version_id=version_id, **{f"match_id__{k}": v for k, v in span.items()})
        if not self.owner:
            # The same range on the match side too: PostgreSQL joins the visible matches by merging with a
            # backward scan of the match table, which must start at ``before``, not at the newest match.
            visible = Match.objects.filter(pk=OuterRef("match_id"), purpose=Match.Purpose.TOURNAMENT,
                                           **{f"pk__{k}": v for k, v in span.items()})
            seats = seats.filter(Exists(visible))
        return seats.order_by("-match_id", "seat")

    def newest(self, columns: tuple[str, ...], n: int, before: int | None = None, oldest: int | None = None,
               **filters) -> list[tuple]:
        """The ``n`` newest visible seats over all versions as ``values_list(*columns)`` rows, newest first;
        ``columns`` start with "match_id", "seat". Each version gives its n newest from its index range: on
        PostgreSQL in one statement (UNION ALL of the limited ranges), elsewhere one query a version."""
        queries = [self.seats_of(v, before, oldest).filter(**filters).values_list(*columns)[:n]
                   for v in self.version_ids]
        if len(queries) > 1 and connection.features.supports_slicing_ordering_in_compound:
            runs = [sorted(queries[0].union(*queries[1:], all=True), key=lambda r: (-r[0], r[1]))]
        else:
            runs = [list(q) for q in queries]
        return list(islice(heapq.merge(*runs, key=lambda r: (-r[0], r[1])), n))

    def recent_matches(self, before: int | None = None, limit: int = 20) -> tuple[list[MatchRow], int | None]:
        """About ``limit`` of the bot's seats in its most recent matches older than match ``before`` (keyset
        paging), and the ``before`` of the next page (None: no more). A page never splits a match: it ends
        with every seat of the bot in its last match."""
        fetched = self.newest(("match_id", "seat"), limit + MAX_SEATS, before=before)
        page = fetched[:limit]
        for row in fetched[limit:]:
            if row[0] != page[-1][0]:
                break
            page.append(row)
        following = page[-1][0] if len(fetched) > len(page) else None
        return match_rows(page, self.viewer), following

    def window_start(self) -> int | None:
        """The oldest match id among the bot's newest ``RECORD_WINDOW`` visible seats (None: fewer seats)."""
        if not hasattr(self, "_window_start"):  # faults and head-to-head share it
            ids = self.newest(("match_id", "seat"), RECORD_WINDOW)
            self._window_start = ids[-1][0] if len(ids) == RECORD_WINDOW else None
        return self._window_start

    def faults(self, limit: int = 30) -> list[dict]:
        """The faults of the bot in its recent matches, newest first: match, seat, version, move (the number
        of the move it happened on, from 1, as the match page's ``?move=`` counts), kind; its owner also gets
        each fault's detail (it may quote what the bot printed)."""
        seats = self.newest(("match_id", "seat", "bot_version__number", "fault_log"), limit,
                            oldest=self.window_start(), faults__gt=0)
        rows: list[dict] = []
        for match_id, seat, number, fault_log in seats:
            for fault in reversed(fault_log or []):
                row = {k: fault[k] for k in PUBLIC_FAULT_KEYS if k in fault}
                row.update(match=match_id, seat=seat, version=number,
                           move=fault["move"] + 1)  # the log's move index is 0-based; the viewer's position counts
                if self.owner:
                    row["detail"] = fault.get("detail", "")
                rows.append(row)
        return rows[:limit]

    def counted_record(self) -> dict:
        """``faults`` (:meth:`faults`) and ``head_to_head`` (:meth:`head_to_head`) as counted at most
        ``RECORD_SECONDS`` ago, and ``at``, when: both read up to ``RECORD_WINDOW`` of the bot's seats."""
        key = f"record:{self.bot.pk}:{int(self.owner)}:{','.join(map(str, sorted(self.version_ids)))}"
        record = cache_get(key)
        if record is None:
            record = {"faults": self.faults(), "head_to_head": self.head_to_head(), "at": timezone.now()}
            cache_set(key, record, RECORD_SECONDS)
        return record

    def head_to_head(self, top: int = 10) -> list[HeadToHead]:
        """The ``top`` opponents the bot met most in its recent matches, with how often it placed above them.
        In a match where a bot holds several seats its best place counts."""
        best: dict[int, int] = {}
        mine = self.newest(("match_id", "seat", "rank"), RECORD_WINDOW, oldest=self.window_start(),
                           rank__isnull=False)
        for match_id, _seat, rank in mine:
            best[match_id] = min(rank, best.get(match_id, rank))
        if not best:
            return []
        theirs: dict[int, dict[int, int]] = defaultdict(dict)  # opponent bot -> match -> its best rank
        others = (MatchSeat.objects.filter(match_id__in=list(best), rank__isnull=False)
                  .exclude(bot_version_id__in=self.version_ids).values_list("match_id", "bot_version__bot_id", "rank"))
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
