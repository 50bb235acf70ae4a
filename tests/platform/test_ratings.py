"""TrueSkill from the ranks of all seats, ties included, exactly once, one match at a time per game."""
import pytest
import trueskill
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from players.services import system_player
from ratings.models import BracketRating, GameLock, Rating, RatingChange
from ratings.selectors import leaderboard, rating_history
from ratings.services import environment, rate_match
from tournaments.models import Match, MatchSeat


def make_versions(n, game="port_royal"):
    owner = system_player()
    return [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game=game, name=f"b{i}"), number=1,
                                      kind="builtin", builtin_name="random", status="valid") for i in range(n)]


def finished_match(versions, ranks, game="port_royal"):
    match = Match.objects.create(game=game, seed=1, status=Match.Status.FINISHED)
    for seat, (v, r) in enumerate(zip(versions, ranks)):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=v, rank=r, score=0)
    return match


@pytest.mark.django_db
def test_a_four_seat_match_with_a_tie_matches_trueskill_itself():
    versions = make_versions(4)
    match = finished_match(versions, [1, 0, 1, 3])
    with transaction.atomic():
        assert rate_match(match, "standard") is True
    env = environment()
    expected = env.rate([(env.create_rating(),)] * 4, ranks=[1, 0, 1, 3])
    for v, (e,) in zip(versions, expected):
        r = Rating.objects.get(bot_version=v)
        assert r.mu == pytest.approx(e.mu) and r.sigma == pytest.approx(e.sigma) and r.games == 1
    mus = {v.pk: Rating.objects.get(bot_version=v).mu for v in versions}
    # The tied seats move alike (TrueSkill's chain of rank pairs leaves a tiny asymmetry);
    # the winner gains, the last loses.
    assert mus[versions[0].pk] == pytest.approx(mus[versions[2].pk], abs=0.01)
    assert mus[versions[1].pk] > 25 > mus[versions[3].pk]


@pytest.mark.django_db
def test_rating_is_applied_once_per_match():
    versions = make_versions(2)
    match = finished_match(versions, [0, 1])
    with transaction.atomic():
        assert rate_match(match, "standard")
    with transaction.atomic():
        assert rate_match(match, "standard") is False
    assert RatingChange.objects.count() == 2
    assert Rating.objects.get(bot_version=versions[0]).games == 1


@pytest.mark.django_db(transaction=True)
def test_rating_outside_a_transaction_is_refused():
    match = finished_match(make_versions(2), [0, 1])
    with pytest.raises(RuntimeError, match="inside the transaction"):
        rate_match(match, "standard")


@pytest.mark.django_db
def test_updates_chain_in_order_and_feed_the_leaderboard():
    a, b, c = make_versions(3)
    for ranks in ([0, 1, 2], [0, 2, 1], [1, 0, 2], [0, 1, 1]):
        with transaction.atomic():
            rate_match(finished_match([a, b, c], ranks), "standard")
    assert GameLock.objects.get(game="port_royal").sequence == 4
    for v in (a, b, c):
        changes = list(RatingChange.objects.filter(rating__bot_version=v).order_by("sequence"))
        assert [ch.sequence for ch in changes] == [1, 2, 3, 4]
        for prev, nxt in zip(changes, changes[1:]):  # no update was lost or applied on a stale value
            assert nxt.mu_before == prev.mu_after and nxt.sigma_before == prev.sigma_after
        history = rating_history(Rating.objects.get(bot_version=v))
        assert [h["mu"] for h in history] == [ch.mu_after for ch in changes]
    board = list(leaderboard("port_royal"))
    keys = [r.mu - 3 * r.sigma for r in board]
    assert keys == sorted(keys, reverse=True) and board[0].bot_version == a


def test_environment_allows_draws():
    assert environment().draw_probability > 0
    assert isinstance(environment(), trueskill.TrueSkill)


@pytest.mark.django_db
def test_a_history_of_table_sizes_gives_trueskills_own_ratings_overall_and_per_bracket():
    """Versions that play at 2, 3 and 4 seats hold a rating in several brackets: each match reads and moves
    only its own bracket's (PostgreSQL reads them all by the match's id and keeps its bracket's)."""
    a, b, c, d = make_versions(4)
    env = environment()
    overall, brackets = {}, {}
    for seated, ranks in (([a, b], [0, 1]), ([a, b, c, d], [1, 0, 2, 2]), ([c, a, d], [0, 2, 1]),
                          ([b, a], [0, 1]), ([d, c, b, a], [3, 2, 1, 0]), ([a, b, c], [0, 0, 1])):
        with transaction.atomic():
            assert rate_match(finished_match(seated, ranks), "standard") is True
        bracket = "2" if len(seated) == 2 else "3-4"
        for table, key in ((overall, lambda v: v.pk), (brackets, lambda v: (bracket, v.pk))):
            before = [table.get(key(v), env.create_rating()) for v in seated]
            for v, (after,) in zip(seated, env.rate([(r,) for r in before], ranks=ranks)):
                table[key(v)] = after
    for v in (a, b, c, d):
        rating = Rating.objects.get(bot_version=v)
        assert (rating.mu, rating.sigma) == (overall[v.pk].mu, overall[v.pk].sigma)
    stored = {(r.bracket, r.bot_version_id): (r.mu, r.sigma) for r in BracketRating.objects.all()}
    assert stored == {key: (r.mu, r.sigma) for key, r in brackets.items()}


@pytest.mark.django_db
def test_rating_a_match_takes_two_round_trips_on_postgresql():
    versions = make_versions(4)
    with transaction.atomic():
        rate_match(finished_match(versions, [0, 1, 2, 3]), "standard")  # creates the lock row and the ratings
    match = finished_match(versions, [3, 2, 1, 0])
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert rate_match(match, "standard") is True
    with transaction.atomic(), CaptureQueriesContext(connection) as again:
        assert rate_match(match, "standard") is False
    if connection.vendor == "postgresql":  # the mark with the lock and the reads, then the writes; refused: the mark
        assert (len(queries), len(again)) == (2, 1), [q["sql"] for q in queries.captured_queries]
    assert RatingChange.objects.filter(match=match).count() == 4
    assert GameLock.objects.get(game="port_royal").sequence == 2  # the refused second rating took no turn
