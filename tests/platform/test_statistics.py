"""Game statistics against values counted by hand on four small matches."""
import pytest
from django.db import transaction

from bots.models import Bot, BotVersion
from engines.games import get_game
from players.services import system_player
from ratings.services import rate_match
from tournaments.results.statistics import (cached_game_statistics, game_statistics, head_to_head, histogram,
                                            match_lengths, refresh_statistics, score_distribution, seat_results)
from tournaments.models import Match, MatchSeat, Tournament


def make_versions(names, game="port_royal"):
    owner = system_player()
    return [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game=game, name=n), number=1,
                                      kind="builtin", builtin_name="random", status="valid") for n in names]


def played(seats, ranks, scores, moves, rated=True, tournament=None, game="port_royal"):
    match = Match.objects.create(game=game, seed=1, status=Match.Status.FINISHED, num_moves=moves,
                                 tournament=tournament)
    for seat, (v, r, s) in enumerate(zip(seats, ranks, scores)):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=v, rank=r, score=s)
    if rated:
        with transaction.atomic():
            rate_match(match, "standard")
    return match


@pytest.fixture
def history(db):
    """m1: A B C placed 1 2 3; m2: B A placed 1 2; m3: C A B placed 1 1 3 (a tie); m4 friendly: B beats A."""
    a, b, c = make_versions(["a", "b", "c"])
    friendly = Tournament.objects.create(name="f", game="port_royal", seats_per_match=2)
    played([a, b, c], [0, 1, 2], [12, 8, 5], 100)
    played([b, a], [0, 1], [10, 9], 40)
    played([c, a, b], [0, 0, 2], [7, 7, 3], 60)
    played([a, b], [1, 0], [1, 30], 500, rated=False, tournament=friendly)
    return a, b, c, friendly


def test_head_to_head_counts_matches_together_and_who_placed_above(history):
    a, b, c, _ = history
    h2h = head_to_head("port_royal")
    assert {bot["bot_version"] for bot in h2h["bots"]} == {a.pk, b.pk, c.pk}
    cells = {(x["a"], x["b"]): (x["matches"], x["above"], x["below"], x["ties"]) for x in h2h["cells"]}
    assert cells == {
        (a.pk, b.pk): (3, 2, 1, 0), (b.pk, a.pk): (3, 1, 2, 0),
        (a.pk, c.pk): (2, 1, 0, 1), (c.pk, a.pk): (2, 0, 1, 1),
        (b.pk, c.pk): (2, 1, 1, 0), (c.pk, b.pk): (2, 1, 1, 0),
    }
    # Limited to the best rated bots, in leaderboard order.
    assert len(head_to_head("port_royal", top=2)["bots"]) == 2
    assert all(x["a"] != x["b"] for x in h2h["cells"])


def test_results_by_seat_per_table_size(history):
    rows = {(r["players"], r["seat"]): (r["matches"], r["average_place"], r["win_rate"])
            for r in seat_results("port_royal")}
    assert rows == {(2, 0): (1, 1.0, 1.0), (2, 1): (1, 2.0, 0.0),
                    (3, 0): (2, 1.0, 1.0), (3, 1): (2, 1.5, 0.5), (3, 2): (2, 3.0, 0.0)}


def test_score_distribution_of_every_seat_and_of_the_winners(history):
    scores = score_distribution("port_royal")
    assert scores["seats"] == 8 and scores["mean"] == pytest.approx(61 / 8)
    every = {b["low"]: b["count"] for b in scores["bins"]}
    assert every == {3: 1, 4: 0, 5: 1, 6: 0, 7: 2, 8: 1, 9: 1, 10: 1, 11: 0, 12: 1}
    winners = {b["low"]: b["count"] for b in scores["winner_bins"]}
    assert winners == {3: 0, 4: 0, 5: 0, 6: 0, 7: 2, 8: 0, 9: 0, 10: 1, 11: 0, 12: 1}  # on the same bins


def test_match_lengths(history):
    lengths = match_lengths("port_royal")
    assert lengths["matches"] == 3 and lengths["median"] == 60
    assert lengths["mean"] == pytest.approx(200 / 3)
    counts = [b["count"] for b in lengths["bins"]]
    # 40..100 is 61 whole values: 16 bins of 4 moves.
    assert len(counts) == 16 and lengths["bins"][0]["low"] == 40 and lengths["bins"][0]["high"] == 44
    assert counts[0] == 1 and counts[5] == 1 and counts[15] == 1 and sum(counts) == 3


def test_one_tournament_counts_its_own_matches_rated_or_not(history):
    *_, friendly = history
    stats = game_statistics("port_royal", tournament=friendly.pk)
    assert stats["lengths"]["matches"] == 1 and stats["lengths"]["median"] == 500
    assert stats["scores"]["mean"] == pytest.approx(15.5)
    assert [(r["seat"], r["win_rate"]) for r in stats["seats"]] == [(0, 0.0), (1, 1.0)]
    assert game_statistics("port_royal", ruleset="other")["lengths"]["matches"] == 0


def test_histogram_bins():
    assert histogram({}) == []
    assert histogram({5: 3}) == [{"low": 5, "high": 6, "count": 3}]
    # Fractional values: equal bins over [low, high], the top value in the last bin.
    bins = histogram({0.5: 1, 1.5: 2, 2.5: 3}, max_bins=2)
    assert [(b["low"], b["high"], b["count"]) for b in bins] == [(0.5, 1.5, 1), (1.5, 2.5, 5)]
    wide = histogram({v: 1 for v in range(100)}, max_bins=20)
    assert len(wide) == 20 and all(b["count"] == 5 for b in wide)


def test_the_api_serves_the_statistics(history):
    from rest_framework.test import APIClient

    a, b, c, friendly = history
    client = APIClient()
    body = client.get("/api/games/port_royal/stats/").json()
    assert body.pop("as_of").startswith("20")
    assert body == {**game_statistics("port_royal"), "ruleset": None, "tournament": None} | {
        "head_to_head": body["head_to_head"]}
    cell = next(x for x in body["head_to_head"]["cells"] if (x["a"], x["b"]) == (a.pk, b.pk))
    assert (cell["matches"], cell["above"], cell["below"]) == (3, 2, 1)
    assert body["lengths"]["median"] == 60 and body["scores"]["seats"] == 8
    one = client.get(f"/api/games/port_royal/stats/?tournament={friendly.pk}&top=1").json()
    assert one["lengths"]["matches"] == 1 and len(one["head_to_head"]["bots"]) == 1
    for bad, field in (("?top=0", "top"), ("?top=31", "top"), ("?tournament=999999", "tournament"),
                       ("?ruleset=huge", "ruleset"), ("?ruleset=", "ruleset")):
        response = client.get("/api/games/port_royal/stats/" + bad)
        assert response.status_code == 400 and field in response.json()["fields"], bad
    assert client.get("/api/games/chess/stats/").status_code == 404


def test_the_statistics_page(history, client):
    a, b, c, friendly = history
    html = client.get("/games/port_royal/stats/").content.decode()
    assert html.count("<svg") == 3 and ">2/3<" in html and a.label in html  # a placed above b 2 of 3 times
    assert "Results by seat" in html and "Match lengths" in html
    assert client.get(f"/games/port_royal/stats/?tournament={friendly.pk}").status_code == 200
    for bad in ("?top=99", "?tournament=x", "?tournament=²", "?ruleset=huge", "?tournament=999999"):
        assert client.get("/games/port_royal/stats/" + bad).status_code == 404, bad
    assert client.get("/games/catan/stats/").status_code == 200  # no matches yet: still a page


def test_the_new_endpoints_are_in_the_openapi_schema(db):
    from rest_framework.test import APIClient

    document = APIClient().get("/api/schema/?format=json").json()
    paths = document["paths"]
    assert {"/api/games/{game}/stats/", "/api/games/{game}/compare/", "/api/export/{game}/matches.jsonl",
            "/api/export/{game}/matches.csv", "/api/export/{game}/ratings.jsonl",
            "/api/export/{game}/ratings.csv"} <= set(paths)
    assert list(paths["/api/export/{game}/matches.csv"]["get"]["responses"]["200"]["content"]) == ["text/csv"]
    assert list(paths["/api/export/{game}/matches.jsonl"]["get"]["responses"]["200"]["content"]) == [
        "application/x-ndjson"]
    players = next(p for p in paths["/api/leaderboards/{game}/"]["get"]["parameters"] if p["name"] == "players")
    assert players["schema"]["enum"] == ["2", "3-4", "5-6"]


def test_rated_statistics_are_kept_until_recounted_a_tournaments_until_its_next_match(history):
    a, b, c, friendly = history
    rated = cached_game_statistics("port_royal")
    assert rated["lengths"]["matches"] == 3
    played([a, b], [0, 1], [20, 2], 80)  # a new rated match: the pages keep their count until beat recounts
    assert cached_game_statistics("port_royal") == rated
    assert refresh_statistics(["port_royal"]) == 1 + len(get_game("port_royal").rated_presets)  # all, then each
    recounted = cached_game_statistics("port_royal")
    assert recounted["lengths"]["matches"] == 4 and recounted["as_of"] >= rated["as_of"]

    mine = cached_game_statistics("port_royal", tournament=friendly.pk)
    assert mine["lengths"]["matches"] == 1
    played([b, a], [0, 1], [5, 4], 30, rated=False, tournament=friendly)
    assert cached_game_statistics("port_royal", tournament=friendly.pk)["lengths"]["matches"] == 2


def test_beats_statistics_thread_counts_every_game_at_once_on_start(history):
    import threading

    from tournaments.running.lifecycle import statistics_forever

    before = cached_game_statistics("port_royal")
    a, b, c, friendly = history
    played([a, c], [0, 1], [9, 3], 70)
    stop = threading.Event()
    stop.set()  # one round, then stop
    statistics_forever(stop)
    assert cached_game_statistics("port_royal")["lengths"]["matches"] == before["lengths"]["matches"] + 1


def test_a_ladders_statistics_are_kept_for_a_while_not_recounted_at_each_match(history, settings):
    """A ladder never ends and finishes a match every few seconds: keyed on its count of finished matches, any
    request after each one (and each ``?top=``) recounted its whole history. Kept as the rated views are."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a, b, c, _ = history
    ladder = Tournament.objects.create(name="l", game="port_royal", seats_per_match=2, format=Tournament.Format.LADDER)
    played([a, b], [0, 1], [3, 1], 10, tournament=ladder)
    first = cached_game_statistics("port_royal", tournament=ladder.pk)
    played([b, a], [0, 1], [3, 1], 10, tournament=ladder)
    with CaptureQueriesContext(connection) as queries:
        assert cached_game_statistics("port_royal", tournament=ladder.pk) == first
    assert len(queries) == 1  # is it a ladder; nothing counted
    assert first["lengths"]["matches"] == 1
