"""Doorbells that name several matches: a large batch rings one message per ten matches (tournaments.running.doorbell),
one worker plays them in turn (pipeline.run_matches), puts back those it has not begun when it is asked to stop
or has held them for DOORBELL_SECONDS, and marks them as rung when it takes them, so the reconciler does not
ring them again while they wait behind the worker's current match."""
from datetime import timedelta

from django.utils import timezone

from arena.celery import app
from arena_testing import purge_broker_queue
from ratings.models import Rating, RatingChange
from tournaments import services
from tournaments.running import doorbell
from tournaments.running import leases
from tournaments.running import pipeline
from tournaments.running.doorbell import doorbells, waiting_match_ids
from tournaments.models import Match, Tournament


def make_tournament(versions, games: int, rated: bool = False):
    return services.create_tournament(name="bells", game="port_royal", seats=2, games_per_pairing=games, seed=5,
                                      bot_versions=[versions["random"], versions["heuristic"]], rated=rated)


def waiting_doorbells() -> list[list[int]]:
    """The match ids of each message in the queue (the suite's broker is the filesystem), in ringing order."""
    folder = app.conf.broker_transport_options["data_folder_in"]
    messages = [doorbell._match_ids(raw) for raw in doorbell._filesystem_messages(folder, app.conf.task_default_queue)]
    return sorted(messages)


def test_a_batch_is_split_into_doorbells_in_order():
    assert doorbells([]) == []
    assert doorbells(range(5)) == [[0], [1], [2], [3], [4]]
    assert doorbells(range(64)) == [[i] for i in range(64)]  # a small batch: one doorbell a match
    hundred = doorbells(range(100))
    assert len(hundred) == 64 and {len(bell) for bell in hundred} == {1, 2}
    assert sum(hundred, []) == list(range(100))
    big = doorbells(range(2005))
    assert len(big) == 201 and {len(bell) for bell in big} == {9, 10}
    assert sum(big, []) == list(range(2005))


def test_the_doorbells_follow_the_operators_settings(settings, monkeypatch):
    monkeypatch.setitem(settings.ARENA, "MATCHES_PER_DOORBELL", 1)
    assert doorbells(range(300)) == [[i] for i in range(300)]  # a message per match, as before doorbells
    monkeypatch.setitem(settings.ARENA, "MATCHES_PER_DOORBELL", 10)
    monkeypatch.setitem(settings.ARENA, "DOORBELLS_SPREAD", 4)
    assert doorbells(range(10)) == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]  # few workers: fewer, fuller doorbells
    assert doorbells(range(3)) == [[0], [1], [2]]


def test_a_large_tournament_rings_a_doorbell_per_few_matches(builtin_versions):
    purge_broker_queue()
    ids = sorted(make_tournament(builtin_versions, games=200).matches.values_list("pk", flat=True))
    services.enqueue_matches(ids)
    bells = waiting_doorbells()
    assert len(bells) == 64 and {len(bell) for bell in bells} == {3, 4}
    assert sorted(sum(bells, [])) == ids
    assert waiting_match_ids() == set(ids)


def test_a_doorbell_plays_its_matches_in_turn_and_once(builtin_versions):
    ids = sorted(make_tournament(builtin_versions, games=3).matches.values_list("pk", flat=True))
    assert pipeline.run_matches(ids, "worker-a") == ["finished"] * 3
    started = list(Match.objects.filter(pk__in=ids).order_by("pk").values_list("started_at", flat=True))
    assert started == sorted(started)
    assert pipeline.run_matches(ids, "worker-b") == ["not claimed"] * 3  # a second delivery
    assert set(Match.objects.filter(pk__in=ids).values_list("worker", flat=True)) == {"worker-a"}


def test_a_doorbell_held_too_long_rings_again_for_the_rest(builtin_versions, monkeypatch):
    purge_broker_queue()
    ids = sorted(make_tournament(builtin_versions, games=3).matches.values_list("pk", flat=True))
    monkeypatch.setattr(pipeline, "DOORBELL_SECONDS", 0.0)
    assert pipeline.run_matches(ids, "worker-a") == ["finished", "rung again", "rung again"]
    statuses = dict(Match.objects.filter(pk__in=ids).values_list("pk", "status"))
    assert statuses == {ids[0]: Match.Status.FINISHED, ids[1]: Match.Status.QUEUED, ids[2]: Match.Status.QUEUED}
    assert waiting_doorbells() == [[ids[1]], [ids[2]]]  # each its own doorbell now, for any worker


def test_a_stopping_worker_begins_none_of_its_doorbell(builtin_versions, monkeypatch):
    purge_broker_queue()
    ids = sorted(make_tournament(builtin_versions, games=3).matches.values_list("pk", flat=True))
    Match.objects.filter(pk=ids[2]).update(status=Match.Status.FINISHED)  # a duplicate's match, already done
    monkeypatch.setattr(leases, "_stop_requested_at", None)
    leases.request_stop()
    assert pipeline.run_matches(ids, "worker-a") == ["rung again"] * 3
    assert Match.objects.filter(pk__in=ids[:2], status=Match.Status.QUEUED, attempts=0).count() == 2
    assert waiting_doorbells() == [[ids[0]], [ids[1]]]  # only the queued ones


def test_the_reconciler_leaves_alone_the_matches_of_a_doorbell_a_worker_holds(builtin_versions, monkeypatch):
    ids = sorted(make_tournament(builtin_versions, games=3).matches.values_list("pk", flat=True))
    # Rung long ago; their doorbell is now the worker's, so the queue holds nothing for them.
    Match.objects.filter(pk__in=ids).update(enqueued_at=timezone.now() - timedelta(hours=1))
    purge_broker_queue()
    rung_again = []
    real_play = pipeline.play_match

    def play_while_the_reconciler_runs(*args, **kwargs):
        rung_again.extend(pipeline.reconcile_matches())
        return real_play(*args, **kwargs)

    monkeypatch.setattr(pipeline, "play_match", play_while_the_reconciler_runs)
    assert pipeline.run_matches(ids, "worker-a") == ["finished"] * 3
    assert rung_again == []
    assert waiting_match_ids() == set()


def test_each_next_match_is_claimed_with_the_store_of_the_one_before(builtin_versions, monkeypatch):
    ids = sorted(make_tournament(builtin_versions, games=3, rated=True).matches.values_list("pk", flat=True))
    batches = []
    real_run_statements = pipeline.run_statements

    def recording(statements, *args, **kwargs):
        batches.append(list(statements))
        return real_run_statements(statements, *args, **kwargs)

    def claimed(statement) -> int | None:
        sql, params = statement
        return params[params.index("worker-a") + 1] if "attempts = attempts + 1" in sql else None

    def stored(statement) -> int | None:
        sql, params = statement
        return params[-3] if sql.startswith('UPDATE "tournaments_match" SET status') and "finished" in params else None

    monkeypatch.setattr(pipeline, "run_statements", recording)
    monkeypatch.setattr(services, "run_statements", recording)
    assert pipeline.run_matches(ids, "worker-a") == ["finished"] * 3
    # Whether the tournament is over is read once: after the others, the worker held its next match open.
    assert sum(1 for b in batches if b[0][0].startswith("SELECT 1 FROM")) == 1
    assert Tournament.objects.get(matches=ids[0]).status == Tournament.Status.FINISHED
    claims = [b for b in batches if claimed(b[0])]
    # The first match's claim with its read alone; each next one's first in the batch that stores the one before.
    assert [claimed(b[0]) for b in claims] == ids
    assert len(claims[0]) == 2
    assert [stored(b[2]) for b in claims[1:]] == ids[:2]
    assert sum(1 for b in batches for statement in b if claimed(statement)) == 3
    # Each match rated once, in the order stored.
    assert RatingChange.objects.filter(match__in=ids).count() == 6
    assert list(RatingChange.objects.filter(match__in=ids).order_by("id").values_list("match", flat=True)) == \
        [i for i in ids for _ in range(2)]
    assert set(Rating.objects.values_list("games", flat=True)) == {3}
    assert list(Match.objects.filter(pk__in=ids).values_list("attempts", flat=True)) == [1, 1, 1]


class WorkerKilled(BaseException):
    """The worker process dies (nothing after this point of the pipeline runs)."""


def test_a_worker_killed_after_a_store_leaves_the_next_match_claimed_until_its_lease_expires(builtin_versions,
                                                                                              monkeypatch):
    ids = sorted(make_tournament(builtin_versions, games=3).matches.values_list("pk", flat=True))

    def killed(match, next_open=None):
        raise WorkerKilled

    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "advance_after_match", killed)
        try:
            pipeline.run_matches(ids, "worker-a")
        except WorkerKilled:
            pass
    status = dict(Match.objects.filter(pk__in=ids).values_list("pk", "status"))
    assert status == {ids[0]: Match.Status.FINISHED, ids[1]: Match.Status.RUNNING, ids[2]: Match.Status.QUEUED}
    purge_broker_queue()
    assert pipeline.reconcile_matches() == []  # its lease still runs, and the third was marked as rung
    Match.objects.filter(pk=ids[1]).update(lease_until=timezone.now() - timedelta(seconds=1))
    Match.objects.filter(pk=ids[2]).update(enqueued_at=timezone.now() - timedelta(hours=1))
    assert pipeline.reconcile_matches() == ids[1:]
    assert pipeline.run_matches(ids[1:], "worker-b") == ["finished", "finished"]
    assert dict(Match.objects.filter(pk__in=ids).values_list("pk", "attempts")) == {ids[0]: 1, ids[1]: 2, ids[2]: 1}


def test_a_claim_sent_again_after_a_lost_reply_takes_the_match_again_and_no_other_claim_does(builtin_versions):
    match_id = min(make_tournament(builtin_versions, games=1).matches.values_list("pk", flat=True))
    claim = pipeline.Claim(match_id, "worker-a")
    first = claim.result(*pipeline.run_statements(claim.statements()))
    again = claim.result(*pipeline.run_statements(claim.statements()))
    assert first and again and first[0] == again[0] == claim.token
    other = pipeline.Claim(match_id, "worker-b")
    assert other.result(*pipeline.run_statements(other.statements())) is None  # the lease still runs
    assert Match.objects.get(pk=match_id).worker == "worker-a"
