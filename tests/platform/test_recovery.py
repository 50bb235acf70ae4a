"""Recovery mechanisms in one process: the broker look-up that keeps the reconciler from duplicating
a backlog, the lease heartbeat that stops a match taken over, the hand-back on SIGTERM, and the
health views (arenastatus, /staff/health/). Real worker processes and faults: tests/integration/."""
import json
import threading
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from arena_testing import purge_broker_queue
from ratings.models import RatingChange
from tournaments import services
from tournaments.running import leases
from tournaments.running import pipeline
from tournaments.running.doorbell import waiting_match_ids
from tournaments.models import Match, WorkerBeat
from tournaments.selectors import match_log


def make_tournament(versions, games=4, game="port_royal"):
    return services.create_tournament(name="r", game=game, seats=2, games_per_pairing=games, seed=11,
                                      bot_versions=[versions["random"], versions["heuristic"]])


def test_a_backlog_waiting_in_the_broker_is_not_rung_again(builtin_versions):
    purge_broker_queue()
    tournament = make_tournament(builtin_versions)
    ids = sorted(tournament.matches.values_list("pk", flat=True))
    services.enqueue_matches(ids)
    assert waiting_match_ids() >= set(ids)
    # Long queued, but every message still waits for a worker: no duplicates.
    Match.objects.filter(pk__in=ids).update(enqueued_at=timezone.now() - timedelta(hours=1))
    assert pipeline.reconcile_matches() == []
    # The broker restarts empty: every one is rung again, once.
    purge_broker_queue()
    assert pipeline.reconcile_matches() == ids
    assert pipeline.reconcile_matches() == []


def test_a_lost_message_is_rung_again_only_after_the_short_bound(builtin_versions, settings):
    purge_broker_queue()
    tournament = make_tournament(builtin_versions, games=1)
    match = tournament.matches.get()
    Match.objects.filter(pk=match.pk).update(enqueued_at=timezone.now())
    assert pipeline.reconcile_matches() == []  # just rung: a worker may be claiming it
    late = settings.ARENA["RERING_AFTER_SECONDS"] + 1
    Match.objects.filter(pk=match.pk).update(enqueued_at=timezone.now() - timedelta(seconds=late))
    assert pipeline.reconcile_matches() == [match.pk]


@pytest.mark.django_db(transaction=True)
def test_a_match_taken_over_stops_and_stores_nothing(builtin_versions, settings, monkeypatch):
    monkeypatch.setitem(settings.ARENA, "HEARTBEAT_SECONDS", 0.05)
    tournament = make_tournament(builtin_versions, games=1)
    match = tournament.matches.get()

    def take_over():  # another worker claims the match while the first plays
        while not Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING).exists():
            time.sleep(0.01)
        Match.objects.filter(pk=match.pk).update(lease_token="another-worker")

    def slow_decisions(*args, on_decision, **kwargs):
        def check(decision):
            time.sleep(0.01)
            on_decision(decision)
        return real_play(*args, on_decision=check, **kwargs)

    real_play = pipeline.play_match
    monkeypatch.setattr(pipeline, "play_match", slow_decisions)
    thief = threading.Thread(target=take_over)
    thief.start()
    assert pipeline.run_match(match.pk, "worker-a") == "lease lost"
    thief.join()
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match_log(match) is None and not match.rated
    assert not RatingChange.objects.filter(match=match).exists()


@pytest.mark.django_db(transaction=True)
def test_a_stopping_worker_hands_its_match_back_after_the_grace(builtin_versions, settings, monkeypatch):
    monkeypatch.setitem(settings.ARENA, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setitem(settings.ARENA, "STOP_GRACE_SECONDS", 0.2)
    tournament = make_tournament(builtin_versions, games=1)
    match = tournament.matches.get()
    real_play = pipeline.play_match

    def sigterm_mid_match(*args, on_decision, **kwargs):
        def check(decision):
            leases.request_stop()  # SIGTERM arrives while the match plays
            time.sleep(0.01)
            on_decision(decision)
        return real_play(*args, on_decision=check, **kwargs)

    monkeypatch.setattr(pipeline, "play_match", sigterm_mid_match)
    monkeypatch.setattr(leases, "_stop_requested_at", None)
    purge_broker_queue()
    assert pipeline.run_match(match.pk, "worker-a") == "handed back"
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.lease_token == "" and match.enqueued_at
    assert waiting_match_ids() == {match.pk}  # rung again: the next worker takes it
    monkeypatch.setattr(leases, "_stop_requested_at", None)
    monkeypatch.setattr(pipeline, "play_match", real_play)
    assert pipeline.run_match(match.pk, "worker-b") == "finished"
    assert Match.objects.get(pk=match.pk).attempts == 2


def test_a_stopping_worker_finishes_a_match_within_the_grace(builtin_versions, monkeypatch):
    tournament = make_tournament(builtin_versions, games=1)
    match = tournament.matches.get()
    monkeypatch.setattr(leases, "_stop_requested_at", None)
    leases.request_stop()
    assert pipeline.run_match(match.pk, "worker-a") == "finished"


def test_arenastatus_shows_matches_leases_and_workers(builtin_versions):
    purge_broker_queue()
    tournament = make_tournament(builtin_versions)
    first, second, *_ = tournament.matches.order_by("pk")
    assert pipeline.claim_match(first.pk, "arena-1@host-a")
    assert pipeline.claim_match(second.pk, "arena-2@host-b")
    Match.objects.filter(pk=second.pk).update(lease_until=timezone.now() - timedelta(seconds=5))
    now = timezone.now()
    WorkerBeat.objects.create(name="arena-1@host-a", host="host-a", pid=10, state=WorkerBeat.State.RUNNING,
                              match_id=first.pk, started_at=now, last_seen=now)
    WorkerBeat.objects.create(name="arena-2@host-b", host="host-b", pid=11, state=WorkerBeat.State.RUNNING,
                              match_id=second.pk, started_at=now, last_seen=now - timedelta(minutes=2))
    out = StringIO()
    call_command("arenastatus", "--json", stdout=out)
    health = json.loads(out.getvalue())
    assert (health["queued"], health["running"]) == (2, 2)
    assert health["stalled"]["expired_leases"] == [second.pk]
    assert sorted(health["stalled"]["lost_messages"]) == sorted(
        tournament.matches.filter(status=Match.Status.QUEUED).values_list("pk", flat=True))
    assert {w["name"]: w["alive"] for w in health["workers"]} == {"arena-1@host-a": True, "arena-2@host-b": False}
    assert health["workers_alive"] == 1
    text = StringIO()
    call_command("arenastatus", stdout=text)
    assert "arena-2@host-b" in text.getvalue() and "NO" in text.getvalue()
    assert "2 queued" in text.getvalue() and "1 expired lease(s)" in text.getvalue()


def test_the_health_page_is_for_staff_only(client, django_user_model, builtin_versions):
    make_tournament(builtin_versions)
    assert client.get("/staff/health/").status_code == 404
    player = django_user_model.objects.create_user("p", password="pw-long-enough-1")
    client.force_login(player)
    assert client.get("/staff/health/").status_code == 404
    staff = django_user_model.objects.create_user("s", password="pw-long-enough-1", is_staff=True)
    client.force_login(staff)
    page = client.get("/staff/health/")
    assert page.status_code == 200
    assert b"4</strong> queued" in page.content and b"no running match" in page.content
