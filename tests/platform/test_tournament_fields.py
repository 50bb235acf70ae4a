"""Who may enter a tournament, how large its field may grow, and what a stop drops: each a way a hostile author
could bend rated play."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from bots.models import Bot, BotVersion
from players.models import Player
from tournaments import services
from tournaments.competition import ladder
from tournaments.competition import schedule
from tournaments.models import Match, Registration, ScheduledTournament, Tournament


def make_bot(owner, name: str, kind: str = "random", number: int = 1, status: str = "valid") -> BotVersion:
    """A version of a built-in player under the owner's name (rows only, cheap to play)."""
    bot, _ = Bot.objects.get_or_create(owner=owner, game="port_royal", name=name)
    return BotVersion.objects.create(bot=bot, number=number, kind="builtin", builtin_name=kind, status=status)


@pytest.fixture
def people(db):
    return {name: Player.objects.create(username=name, is_staff=name == "staff") for name in ("staff", "ann", "bob")}


def cup(organiser, rated: bool, **shape) -> ScheduledTournament:
    """A Port Royal tournament starting in two hours, registration open now."""
    return schedule.schedule_tournament(organiser=organiser, rated=rated, starts_at=timezone.now() + timedelta(hours=2),
                                        **{"name": "cup", "game": "port_royal", "seats": 2} | shape)


def start(scheduled: ScheduledTournament) -> ScheduledTournament:
    schedule.start_due(now=scheduled.starts_at + timedelta(minutes=1))
    scheduled.refresh_from_db()
    return scheduled


# --- scheduled tournaments ------------------------------------------------------------------------------------

def test_a_rated_schedule_takes_one_bot_per_author_so_no_author_meets_itself(people):
    """Ann's second bot could throw its rated games to her first: a rated field has one bot per author."""
    ann, bob = people["ann"], people["bob"]
    rated = cup(people["staff"], rated=True)
    first, second = make_bot(ann, "a1"), make_bot(ann, "a2", "heuristic")
    schedule.register(rated, first, ann)
    with pytest.raises(schedule.ScheduleError, match="one bot per author"):
        schedule.register(rated, second, ann)
    schedule.register(rated, make_bot(ann, "a1", "heuristic", number=2), ann)  # changing the version is fine
    schedule.register(rated, make_bot(bob, "b"), bob)
    # Registrations made around the check (the admin, before it existed) are kept out at the start as well.
    Registration.objects.create(scheduled=rated, bot=second.bot, bot_version=second)
    tournament = start(rated).tournament
    assert tournament.rated and tournament.entry_set.count() == 2
    for match in tournament.matches.all():
        owners = list(match.seats.values_list("bot_version__bot__owner_id", flat=True))
        assert len(set(owners)) == len(owners)
    # A friendly schedule rates nothing: an author may enter several bots there.
    friendly = cup(ann, rated=False)
    schedule.register(friendly, first, ann)
    schedule.register(friendly, second, ann)


def test_registrants_cannot_blow_a_staff_schedule_up_past_the_match_limit(people, settings):
    """A staff organiser is not capped, but the registrants choose the field: a round robin of n bots plays
    C(n, seats) x games, so a flood of registrations would make the scheduler's turn create millions of matches."""
    settings.ARENA = {**settings.ARENA, "MAX_MATCHES_PER_TOURNAMENT": 100}
    big = cup(people["staff"], rated=False, games_per_pairing=50)  # 2 bots: 50 matches, 3 bots: 150
    schedule.register(big, make_bot(people["ann"], "a1"), people["ann"])
    schedule.register(big, make_bot(people["bob"], "b1"), people["bob"])
    with pytest.raises(schedule.ScheduleError, match="full"):
        schedule.register(big, make_bot(people["ann"], "a2"), people["ann"])
    schedule.register(big, make_bot(people["bob"], "b1", "heuristic", number=2), people["bob"])  # a new version: room
    # However the field grew (the admin), the start refuses it rather than expanding it.
    extra = make_bot(people["bob"], "b2")
    Registration.objects.create(scheduled=big, bot=extra.bot, bot_version=extra)
    started = start(big)
    assert started.status == ScheduledTournament.Status.NOT_STARTED and "limit" in started.note
    assert started.tournament is None


# --- the ladder -----------------------------------------------------------------------------------------------

def test_a_flood_of_old_versions_does_not_weigh_on_every_ladder_top_up(people):
    """Every ladder top-up (after each ladder match, under the tournament's lock) reads the field: it reads one
    version a bot, not every valid version ever uploaded (a flood of uploads would slow every top-up of the game)."""
    flood = Bot.objects.create(owner=people["ann"], game="port_royal", name="flood")
    BotVersion.objects.bulk_create([BotVersion(bot=flood, number=n, kind="builtin", builtin_name="random",
                                               status="valid") for n in range(1, 501)])
    steady = make_bot(people["bob"], "steady")
    statements: list[tuple[str, tuple]] = []

    def record(execute, sql, params, many, context):
        statements.append((sql, tuple(params or ())))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        field = ladder.active_versions("port_royal")
    assert [(v.bot.name, v.number) for v in field] == [("flood", 500), ("steady", 1)] and field[1] == steady
    assert field[0].bot.owner == people["ann"]  # read with the version (the ladder's authors)
    rows = 0
    with connection.cursor() as cursor:  # what those statements read, run again
        for sql, params in statements:
            cursor.execute(sql, params)
            rows += len(cursor.fetchall())
    assert rows <= 2 * len(field)


# --- stopping -------------------------------------------------------------------------------------------------

@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_round_created_while_the_tournament_is_stopped_is_dropped_with_it(builtin_versions):
    """A Swiss round made (under the tournament's lock) while its organiser stops the tournament: the stop waits for
    it and drops its matches too, else they would be played (and, in a rated tournament, rated) after the stop.
    (PostgreSQL: SQLite's write transactions never overlap.)"""
    players = [Player.objects.create(username=f"p{i}") for i in range(3)]
    bots = [builtin_versions["random"], *(make_bot(p, "b") for p in players)]
    swiss = services.create_tournament(name="s", game="port_royal", seats=2, format="swiss", rounds=3,
                                       bot_versions=bots)
    swiss.matches.update(status=Match.Status.FAILED)  # round 1 is over: the next advance makes round 2
    making = threading.Event()

    def advance() -> None:
        try:
            with transaction.atomic():
                services.advance_tournament(swiss.pk)
                making.set()
                time.sleep(1.0)  # round 2's matches exist, not yet committed; the tournament's row is locked
        finally:
            connection.close()

    maker = threading.Thread(target=advance)
    maker.start()
    assert making.wait(10)
    services.stop_tournament(swiss)
    maker.join()
    swiss.refresh_from_db()
    assert swiss.status == Tournament.Status.FINISHED and len(swiss.plan["rounds"]) == 2
    assert not swiss.matches.filter(status=Match.Status.QUEUED).exists()
