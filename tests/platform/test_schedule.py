"""Scheduled tournaments: registration windows, recurring schedules, starts on time (once), the API and page."""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone as dt_timezone

import pytest
from django.utils import timezone

from arena_testing import token_client
from bots.models import Bot, BotVersion
from players.models import Player
from tournaments.running import pipeline
from tournaments.competition import schedule
from tournaments.models import Match, RecurringSchedule, ScheduledTournament, Tournament


def make_bot(owner, name: str, kind: str = "random", number: int = 1, status: str = "valid") -> BotVersion:
    bot, _ = Bot.objects.get_or_create(owner=owner, game="port_royal", name=name)
    return BotVersion.objects.create(bot=bot, number=number, kind="builtin", builtin_name=kind, status=status)


@pytest.fixture
def people(db):
    return {name: Player.objects.create(username=name, is_staff=name == "staff") for name in ("staff", "ann", "bob", "cid")}


SHAPE = {"name": "Port Royal cup", "game": "port_royal", "seats": 2, "games_per_pairing": 1}


def test_registration_window_versions_and_an_on_time_start(people):
    now = timezone.now()
    cup = schedule.schedule_tournament(organiser=people["staff"], rated=True, starts_at=now + timedelta(hours=2),
                                       registration_opens_at=now + timedelta(minutes=10),
                                       registration_closes_at=now + timedelta(hours=1), **SHAPE)
    ann1, ann2 = make_bot(people["ann"], "a"), make_bot(people["ann"], "a", "heuristic", 2)
    bob = make_bot(people["bob"], "b")
    cid = make_bot(people["cid"], "c")
    with pytest.raises(schedule.ScheduleError, match="registration is closed"):
        schedule.register(cup, ann1, people["ann"], now=now)  # not open yet
    during = now + timedelta(minutes=30)
    schedule.register(cup, ann1, people["ann"], now=during)
    schedule.register(cup, ann2, people["ann"], now=during)  # the same bot: its version changes
    schedule.register(cup, bob, people["bob"], now=during)
    schedule.register(cup, cid, people["cid"], now=during)
    assert schedule.withdraw(cup, cid.bot, people["cid"], now=during)
    with pytest.raises(schedule.NotAllowed):
        schedule.register(cup, bob, people["ann"], now=during)  # authors enter their own bots
    assert sorted(cup.registrations.values_list("bot_version_id", flat=True)) == sorted([ann2.pk, bob.pk])
    after = now + timedelta(minutes=90)
    with pytest.raises(schedule.ScheduleError, match="closed"):
        schedule.register(cup, cid, people["cid"], now=after)
    with pytest.raises(schedule.ScheduleError, match="closed"):
        schedule.withdraw(cup, bob.bot, people["bob"], now=after)
    assert schedule.start_due(now=after) == []  # not yet
    started = schedule.start_due(now=now + timedelta(hours=2))
    assert [s.pk for s in started] == [cup.pk]
    assert schedule.start_due(now=now + timedelta(hours=3)) == []  # a second scheduler turn: nothing twice
    cup.refresh_from_db()
    t = cup.tournament
    assert cup.status == "started" and t.rated and t.created_by == people["staff"]
    assert set(t.entry_set.values_list("bot_version_id", flat=True)) == {ann2.pk, bob.pk}
    for match in t.matches.all():
        pipeline.run_match(match.pk)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED and all(m.rated for m in t.matches.all())
    assert Tournament.objects.filter(scheduled__isnull=False).count() == 1


def test_a_players_friendly_schedule_takes_any_registered_bot_and_too_few_entrants_do_not_start(people):
    now = timezone.now()
    with pytest.raises(schedule.ScheduleError, match="only staff"):
        schedule.schedule_tournament(organiser=people["ann"], rated=True, starts_at=now + timedelta(hours=1), **SHAPE)
    with pytest.raises(schedule.ScheduleError, match="unknown option"):
        schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(hours=1),
                                     **{**SHAPE, "options": {"nonsense": 1}})
    with pytest.raises(schedule.ScheduleError, match="future"):
        schedule.schedule_tournament(organiser=people["ann"], starts_at=now - timedelta(hours=1), **SHAPE)
    friendly = schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(hours=1), now=now, **SHAPE)
    lonely = schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(hours=1), now=now, **SHAPE)
    # Bob's bot does not accept challenges, but Bob entered it himself.
    schedule.register(friendly, make_bot(people["bob"], "b"), people["bob"], now=now)
    schedule.register(friendly, make_bot(people["cid"], "c"), people["cid"], now=now)
    schedule.register(lonely, make_bot(people["cid"], "d"), people["cid"], now=now)
    schedule.start_due(now=now + timedelta(hours=1))
    friendly.refresh_from_db()
    lonely.refresh_from_db()
    assert friendly.status == "started" and not friendly.tournament.rated
    assert lonely.status == "not_started" and "at least 2 bots" in lonely.note and lonely.tournament is None


def test_weekly_and_daily_schedules_keep_one_next_occurrence(people):
    friday = 4
    wednesday_noon = datetime(2026, 11, 25, 12, 0, tzinfo=dt_timezone.utc)
    weekly = schedule.create_recurring(organiser=people["staff"], every="week", weekday=friday, time=time(18, 0),
                                       registration_hours=72, rated=True, now=wednesday_noon, **SHAPE)
    first = weekly.occurrences.get()
    assert first.starts_at == datetime(2026, 11, 27, 18, 0, tzinfo=dt_timezone.utc)
    assert first.registration_opens_at == wednesday_noon  # 72 h before would be in the past
    assert first.rated and first.name == "Port Royal cup 2026-11-27"
    assert schedule.schedule_occurrences(now=wednesday_noon) == []  # idempotent
    after = first.starts_at + timedelta(seconds=1)
    schedule.start_due(now=after)  # no entrants: not started, and the next one is announced
    created = schedule.schedule_occurrences(now=after)
    assert [o.starts_at for o in created] == [datetime(2026, 12, 4, 18, 0, tzinfo=dt_timezone.utc)]
    assert created[0].registration_opens_at == datetime(2026, 12, 1, 18, 0, tzinfo=dt_timezone.utc)
    daily = RecurringSchedule(every="day", time=time(9, 30))
    assert schedule.next_start(daily, wednesday_noon) == datetime(2026, 11, 26, 9, 30, tzinfo=dt_timezone.utc)
    with pytest.raises(schedule.ScheduleError, match="weekday"):
        schedule.create_recurring(organiser=people["staff"], every="week", time=time(18, 0), **SHAPE)
    schedule.stop_recurring(weekly, people["staff"])
    assert schedule.schedule_occurrences(now=after + timedelta(days=30)) == []


def test_the_scheduler_turn_starts_due_tournaments_and_tops_up_ladders(people, settings):
    from tournaments.competition import ladder

    now = timezone.now()
    for i, owner in enumerate(("ann", "bob", "cid")):
        make_bot(people[owner], f"x{i}")
    lad = ladder.start_ladder("port_royal")
    Match.objects.filter(tournament=lad.tournament).delete()  # as if the ladder's matches were lost
    cup = schedule.schedule_tournament(organiser=None, starts_at=now + timedelta(seconds=1), now=now, **SHAPE)
    done = schedule.run_scheduler(now=now + timedelta(seconds=2))
    cup.refresh_from_db()
    assert done["started"] == 1 and cup.status == "not_started"  # nobody entered
    assert done["ladder_matches"] >= 1 and lad.tournament.matches.exists()


def test_the_api_schedules_registers_and_lists(people):
    staff, ann = token_client(people["staff"]), token_client(people["ann"])
    starts = (timezone.now() + timedelta(days=1)).isoformat()
    answer = ann.post("/api/schedules/", {**SHAPE, "starts_at": starts, "rated": True}, format="json")
    assert answer.status_code == 400 and answer.json()["error"] == "invalid" and "staff" in answer.json()["detail"]
    answer = staff.post("/api/schedules/", {**SHAPE, "starts_at": starts, "rated": True}, format="json")
    assert answer.status_code == 201, answer.json()
    cup = answer.json()
    assert cup["registration_open"] and cup["status"] == "scheduled" and cup["organiser"] == "staff"
    version = make_bot(people["ann"], "a")
    answer = ann.post(f"/api/schedules/{cup['id']}/register/", {"bot_version": "ann/a"}, format="json")
    assert answer.status_code == 200 and answer.json()["bot_version"] == version.pk
    bob_bot = make_bot(people["bob"], "b")
    answer = ann.post(f"/api/schedules/{cup['id']}/register/", {"bot_version": str(bob_bot.pk)}, format="json")
    assert answer.status_code == 403 and answer.json()["error"] == "permission_denied"
    answer = ann.post(f"/api/schedules/{cup['id']}/cancel/", format="json")
    assert answer.status_code == 403
    listed = ann.get("/api/schedules/?status=scheduled&game=port_royal").json()
    assert listed["count"] == 1 and listed["results"][0]["registrations"][0]["label"] == version.label
    assert ann.get("/api/schedules/?status=soon").status_code == 400
    answer = ann.post(f"/api/schedules/{cup['id']}/withdraw/", {"bot": version.bot_id}, format="json")
    assert answer.status_code == 200 and answer.json()["registrations"] == []
    answer = staff.post("/api/recurring-schedules/", {**SHAPE, "every": "week", "weekday": 4, "time": "18:00"},
                        format="json")
    assert answer.status_code == 201 and answer.json()["next"] is not None
    assert staff.post(f"/api/schedules/{cup['id']}/cancel/").json()["status"] == "cancelled"
    from rest_framework.test import APIClient

    assert APIClient().post("/api/schedules/", {**SHAPE, "starts_at": starts}, format="json").status_code == 401


def test_the_schedule_page_lists_what_is_coming(people, client):
    now = timezone.now()
    cup = schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(days=2), **SHAPE)
    bot = Bot.objects.create(owner=people["bob"], game="port_royal", name="b")
    schedule.register(cup, BotVersion.objects.create(bot=bot, number=1, kind="upload", status="valid"), people["bob"])
    page = client.get("/schedule/").content.decode()
    assert "Port Royal cup" in page and "bob/b v1" in page and "open" in page
    assert ScheduledTournament.objects.count() == 1


def test_an_author_enters_changes_and_withdraws_on_the_page_and_sees_the_result(people, client):
    now = timezone.now()
    cup = schedule.schedule_tournament(organiser=None, rated=True, starts_at=now + timedelta(hours=1), **SHAPE)
    v1, v2 = make_bot(people["ann"], "a"), make_bot(people["ann"], "a", "heuristic", 2)
    other = make_bot(people["bob"], "b")
    client.force_login(people["ann"])
    page = client.get("/schedule/").content.decode()
    assert f'value="{v1.pk}"' in page and f'value="{other.pk}"' not in page  # only her own versions
    client.post(f"/schedule/{cup.pk}/register/", {"version": v1.pk})
    client.post(f"/schedule/{cup.pk}/register/", {"version": v2.pk})
    assert list(cup.registrations.values_list("bot_version_id", flat=True)) == [v2.pk]
    answer = client.post(f"/schedule/{cup.pk}/register/", {"version": other.pk}, follow=True)
    assert "authors enter their own bots" in answer.content.decode() and cup.registrations.count() == 1
    client.post(f"/schedule/{cup.pk}/register/", {"withdraw": v2.bot_id})
    assert not cup.registrations.exists()
    client.post(f"/schedule/{cup.pk}/register/", {"version": v2.pk})
    schedule.register(cup, other, people["bob"])
    schedule.start_due(now=now + timedelta(hours=1))
    cup.refresh_from_db()
    page = client.get("/schedule/").content.decode()
    assert f'/tournaments/{cup.tournament_id}/' in page and "Your entries" in page
    assert client.post(f"/schedule/{cup.pk}/register/", {"version": "²"}).status_code == 404


def test_a_scheduled_duplicate_round_robin_plays_series(people):
    now = timezone.now()
    with pytest.raises(schedule.ScheduleError, match="duplicate"):
        schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(hours=1), duplicate=True,
                                     **{**SHAPE, "games_per_pairing": 3})
    cup = schedule.schedule_tournament(organiser=people["ann"], starts_at=now + timedelta(hours=1), duplicate=True,
                                       now=now, **{**SHAPE, "games_per_pairing": 2})
    schedule.register(cup, make_bot(people["ann"], "a"), people["ann"], now=now)
    schedule.register(cup, make_bot(people["bob"], "b"), people["bob"], now=now)
    schedule.start_due(now=now + timedelta(hours=1))
    cup.refresh_from_db()
    assert cup.tournament.duplicate and cup.tournament.matches.count() == 2
    assert len(set(cup.tournament.matches.values_list("seed", flat=True))) == 1  # one series: one seed


def test_a_player_has_a_bounded_number_of_schedules_still_to_come(people, settings):
    settings.ARENA = {**settings.ARENA, "MAX_SCHEDULED_PER_USER": 2}
    starts = timezone.now() + timedelta(days=1)
    first = schedule.schedule_tournament(organiser=people["ann"], starts_at=starts, **SHAPE)
    schedule.create_recurring(organiser=people["ann"], every="day", time=time(9, 0), **SHAPE)
    with pytest.raises(schedule.ScheduleError, match="the limit is 2"):
        schedule.schedule_tournament(organiser=people["ann"], starts_at=starts, **SHAPE)
    schedule.cancel(first, people["ann"])
    schedule.schedule_tournament(organiser=people["ann"], starts_at=starts, **SHAPE)
    for _ in range(3):  # staff are not bound
        schedule.schedule_tournament(organiser=people["staff"], starts_at=starts, **SHAPE)
