"""Matches: claimed once, stored once, rated once; lost ones found by the reconciler."""
from datetime import timedelta

import pytest
from django.utils import timezone

from ratings.models import Rating, RatingChange
from tournaments import services
from tournaments.running import pipeline
from arena_testing import purge_broker_queue
from tournaments.models import Match, Tournament
from tournaments.selectors import match_log


@pytest.fixture
def tournament(builtin_versions):
    return services.create_tournament(name="t", game="port_royal", seats=2, games_per_pairing=4, seed=3,
                                      bot_versions=[builtin_versions["random"], builtin_versions["heuristic"]],
                                      rated=True)


def test_a_tournament_expands_into_matches_with_rotated_seats(tournament):
    matches = list(tournament.matches.order_by("id"))
    assert len(matches) == 4
    firsts = [m.seats.get(seat=0).bot_version.builtin_name for m in matches]
    assert sorted(firsts) == ["heuristic", "heuristic", "random", "random"]
    assert len({m.seed for m in matches}) == 4


def test_run_match_stores_the_log_and_rates_once(tournament):
    match = tournament.matches.first()
    assert pipeline.run_match(match.pk) == "finished"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.rated and match.attempts == 1
    seats = list(match.seats.order_by("seat"))
    assert sorted(s.rank for s in seats) in ([0, 1], [0, 0])
    assert match_log(match)["outcome"]["ranks"] == [s.rank for s in seats]
    assert RatingChange.objects.filter(match=match).count() == 2
    before = {r.pk: (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    # A second delivery of the same task finds nothing to claim: nothing stored or rated twice.
    assert pipeline.run_match(match.pk) == "not claimed"
    assert {r.pk: (r.mu, r.sigma, r.games) for r in Rating.objects.all()} == before
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_worker_that_lost_its_lease_does_not_store(tournament):
    tournament.matches.update(enqueued_at=timezone.now())  # every doorbell rang
    match = tournament.matches.first()
    token = pipeline.claim_match(match.pk, "worker-a")
    assert token and pipeline.claim_match(match.pk, "worker-b") is None  # still leased
    # worker-a stalls past its lease; the reconciler hands the match out again; worker-b finishes it.
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert pipeline.reconcile_matches() == [match.pk]
    assert pipeline.run_match(match.pk, "worker-b") == "finished"
    log = match_log(match)
    # worker-a comes back with its (now stale) result: refused.
    assert pipeline.store_result(match, token, log) == "lease lost"
    assert RatingChange.objects.filter(match=match).count() == 2
    assert Match.objects.get(pk=match.pk).attempts == 2


def test_reconciler_gives_up_a_match_that_outlived_its_lease_every_attempt(tournament, settings):
    """A match that kills or stalls every worker playing it is failed after MAX_MATCH_ATTEMPTS claims, with a
    reason; one with attempts left is handed out again."""
    settings.ARENA = {**settings.ARENA, "MAX_MATCH_ATTEMPTS": 3}
    poison, other = tournament.matches.order_by("id")[:2]
    expired = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=poison.pk).update(status=Match.Status.RUNNING, attempts=3, lease_until=expired,
                                              lease_token="x", enqueued_at=timezone.now())
    Match.objects.filter(pk=other.pk).update(status=Match.Status.RUNNING, attempts=2, lease_until=expired,
                                             lease_token="y", enqueued_at=timezone.now())
    assert other.pk in pipeline.reconcile_matches()
    poison.refresh_from_db()
    assert poison.status == Match.Status.FAILED and "3 attempts" in poison.error and poison.finished_at
    assert Match.objects.get(pk=other.pk).status == Match.Status.QUEUED
    assert pipeline.run_match(poison.pk) == "not claimed"


def test_a_result_the_database_refuses_fails_the_match_instead_of_replaying_it(tournament, monkeypatch):
    """A store that raises (not a lost connection: nothing was written, and a replay would be refused again)
    leaves the match failed with its error, not running until its lease expires and is played again."""
    from django.db import DataError

    def refused(*args, **kwargs):
        raise DataError("text fields cannot contain NUL (0x00) bytes")

    monkeypatch.setattr(pipeline, "_store", refused)
    match = tournament.matches.first()
    assert pipeline.run_match(match.pk) == "failed"
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and "NUL" in match.error and not match.rated
    assert RatingChange.objects.filter(match=match).count() == 0
    assert match.pk not in pipeline.reconcile_matches()  # failed: nothing left to hand out again


def test_reconciler_requeues_matches_whose_message_was_lost(tournament, settings):
    purge_broker_queue()  # the messages are gone (a broker restarted empty)
    Match.objects.filter(tournament=tournament).update(enqueued_at=None)
    assert sorted(pipeline.reconcile_matches()) == sorted(tournament.matches.values_list("pk", flat=True))
    # Freshly enqueued ones are left alone.
    assert pipeline.reconcile_matches() == []


def test_the_tournament_finishes_with_its_last_match(tournament):
    for match in tournament.matches.all():
        pipeline.run_match(match.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished_at
    ratings = {r.bot_version.builtin_name: r for r in Rating.objects.select_related("bot_version")}
    assert ratings["heuristic"].games == ratings["random"].games == 4


def test_an_engine_error_marks_the_match_failed_and_keeps_it(tournament, monkeypatch):
    match = tournament.matches.first()

    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")

    monkeypatch.setattr(pipeline, "play_match", broken)
    assert pipeline.run_match(match.pk) == "failed"
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and "engine bug" in match.error and not match.rated


def test_entries_must_be_valid_distinct_and_of_the_game(builtin_versions):
    random_v = builtin_versions["random"]
    with pytest.raises(services.TournamentError, match="only once"):
        services.create_tournament(name="t", game="port_royal", seats=2, bot_versions=[random_v, random_v])
    with pytest.raises(services.TournamentError, match="played by 2-5 players"):
        services.create_tournament(name="t", game="port_royal", seats=6, bot_versions=[random_v])
    with pytest.raises(services.TournamentError, match="unknown option"):
        services.create_tournament(name="t", game="port_royal", seats=2, options={"bogus": 1},
                                   bot_versions=list(builtin_versions.values()))
    random_v.status = random_v.Status.PENDING
    random_v.save()
    with pytest.raises(services.TournamentError, match="not valid"):
        services.create_tournament(name="t", game="port_royal", seats=2, bot_versions=list(builtin_versions.values()))


@pytest.mark.django_db
def test_a_table_the_engine_refuses_is_refused_up_front():
    from bots.services import register_builtin_bots

    versions = [v for v in register_builtin_bots(["catan"]) if v.builtin_name in ("random", "heuristic")]
    # Catan takes 2 players only with a house option: the trial set-up says so before any match exists.
    with pytest.raises(services.TournamentError, match="allow_two_players"):
        services.create_tournament(name="t", game="catan", seats=2, bot_versions=versions)
    assert services.smallest_table("catan") == 3 and services.smallest_table("port_royal") == 2
